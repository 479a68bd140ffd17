#ifndef WHEREABOUTS_CSQLITE_SHIM_H
#define WHEREABOUTS_CSQLITE_SHIM_H
// Debian's libsqlite3 (libsqlite3-dev), for the stores kept in one SQLite file
// (Sources/SQLiteSupport).
#include <sqlite3.h>
#endif
