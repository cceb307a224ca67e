// valkey-check-rdb: the server binary run under that name (or redis-check-rdb) checks a
// snapshot file and prints Valkey 8's report ("[offset N] ..." lines, "\o/ RDB looks OK! \o/",
// or "--- RDB ERROR DETECTED ---" with the offset and the cause, then the key counts). The check
// is the node's own load (persist/snapshot.h) with every value decoded and checked in depth, so
// the tool refuses exactly what a start-up or a full sync would refuse.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace tools {

// Checks the snapshot in [p, p+n) (a whole file, or an AOF's preamble followed by more) and
// prints the report to out. True when sound; *end is then the offset just past it.
bool CheckSnapshot(const std::string& name, const uint8_t* p, size_t n, int64_t now_ms, FILE* out,
                   uint64_t* end);

// The tool's entry point (argv[0] names it); returns the exit code.
int CheckRdbMain(int argc, char** argv);

}  // namespace tools
