GET /ws HTTP/1.1
Host: 127.0.0.1:7780
Upgrade: websocket
Connection: Upgrade
Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==
Sec-WebSocket-Version: 13
Origin: http://127.0.0.1:7780

Åñ4Vx=Y3`[8QywY&R_I àÇ4Vx‹