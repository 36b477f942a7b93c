GET /ws HTTP/1.1
Host: 127.0.0.1:7780
Upgrade: websocket
Connection: Upgrade
Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==
Sec-WebSocket-Version: 13
Origin: http://127.0.0.1:7780

ÅÜ4Vxb]8ÇÅ4Vxj