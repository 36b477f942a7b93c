#ifndef METRONOME_CSQLITE_SHIM_H
#define METRONOME_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT (a cast of -1 to a function pointer, which Swift cannot import): SQLite copies the bound text
/// before sqlite3_bind_text returns.
static inline sqlite3_destructor_type metronome_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
