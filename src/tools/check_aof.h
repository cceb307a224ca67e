// valkey-check-aof: the server binary run under that name (or redis-check-aof) checks an
// append-only file, as Valkey 8's tool does and with its words, so operators' runbooks and the
// server's own log advice ("use ./valkey-check-aof --fix") work unchanged:
//
//   valkey-check-aof <file.manifest|file.aof>       check; exit 1 when not valid
//   valkey-check-aof --fix <file>                   truncate the last file to its valid part
//   valkey-check-aof --truncate-to-timestamp <t> <file>
//                                                   cut the last file at the first #TS
//                                                   annotation later than unix time t
//
// A manifest (multi-part AOF) has its base file (in snapshot or command form) and its incr files
// checked in order; only the last may be truncated. A file starting "REDIS" is an old-style AOF
// with a snapshot preamble, checked by valkey-check-rdb's code, then its command tail.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace tools {

// The verdict on the commands of one file from `start` (after a snapshot preamble), pure.
struct AofScan {
  enum Verdict {
    kValid,         // every byte is whole commands and annotations, no transaction left open
    kInvalid,       // valid only up to ok_up_to: error says why
    kTimestampCut,  // to_timestamp: a #TS annotation later than it starts at ok_up_to
    kBadTimestamp,  // to_timestamp: a #TS annotation that is not a unix time
  };
  Verdict verdict = kValid;
  uint64_t ok_up_to = 0;      // end of the last whole command outside a MULTI (or the cut)
  uint64_t line = 1;          // the line at ok_up_to, counting protocol and annotation lines
  uint64_t error_at = 0;      // kInvalid: the offset of the fault
  bool format_error = false;  // kInvalid: a line that starts neither a command nor an annotation
  std::string error;          // kInvalid: what is wrong there
};
// to_timestamp 0: annotations are not looked at.
AofScan ScanAof(const uint8_t* p, size_t n, size_t start, int64_t to_timestamp);

// The tool's entry point (argv[0] names it); returns the exit code.
int CheckAofMain(int argc, char** argv);

}  // namespace tools
