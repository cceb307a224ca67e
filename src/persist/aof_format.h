// Append-only file formats, pure of files and sockets: the multi-part manifest, the command
// stream reader (with Valkey's verdicts: complete, cut short, malformed) and the dataset written
// as commands (a base file without the snapshot preamble).
//
// Facts of the format (Redis 7 / Valkey 8 multi-part AOF): a directory holds one base file
// (`<name>.<seq>.base.rdb` in snapshot format, or `.base.aof` in commands), incremental files
// (`<name>.<seq>.incr.aof`) and the manifest `<name>.manifest`, whose lines read
// `file <name> seq <n> type <b|h|i>` (b: base, h: history, waiting to be deleted, i: incr).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "persist/value_codec.h"

namespace persist {

struct AofFile {
  std::string name;
  int64_t seq = 0;
  char type = 'i';  // 'b', 'h' or 'i'
};

struct AofManifest {
  bool has_base = false;
  AofFile base;
  std::vector<AofFile> incr;     // in load order
  std::vector<AofFile> history;  // to delete
  int64_t base_seq = 0;          // highest base seq used so far
  int64_t incr_seq = 0;          // highest incr seq used so far
};

// Parses a manifest as the servers read it. On error `*err` holds Valkey's text ("Invalid AOF
// manifest file format", "File can't be a path, just a filename", "Found duplicate base file
// information", "Found a non-monotonic sequence number", "Unknown AOF file type", "The AOF
// manifest file contains too long line", "Found an empty AOF manifest") and `*where` (if given)
// the 1-based line and its text. Comment lines (`#`) count as lines; keys are case-insensitive;
// unknown key/value pairs are skipped (forward compatibility); seq is read as atoll reads it.
struct ManifestErrorAt {
  int line = 0;
  std::string text;
};
bool ParseAofManifest(std::string_view text, AofManifest* out, std::string* err,
                      ManifestErrorAt* where = nullptr);
// The manifest text: base, then history, then incr files.
std::string FormatAofManifest(const AofManifest& m);

// Reads the commands of an AOF (after a snapshot preamble, if any). Annotation lines (`#...`)
// are skipped, or returned one by one after ReportAnnotations().
class AofReader {
 public:
  enum Status {
    kCommand,     // argv() holds the next command; pos() is past it
    kAnnotation,  // annotation() holds the line, without its "\r\n"; pos() is past it
    kEnd,         // the input ended exactly after a command
    kTruncated,   // the input ends inside a command: valid up to pos()
    kBadFormat,   // not the AOF format at error_offset()
  };
  AofReader(const uint8_t* p, size_t n, size_t start = 0) : p_(p), n_(n), pos_(start) {}
  void ReportAnnotations() { annotations_ = true; }
  Status Next();
  const std::vector<std::string_view>& argv() const { return argv_; }
  std::string_view annotation() const { return annotation_; }
  size_t pos() const { return pos_; }
  size_t error_offset() const { return err_off_; }

 private:
  // A line ending in "\r\n" starting at *at: false when the input ends first.
  bool Line(size_t* at, std::string_view* line);
  const uint8_t* p_;
  size_t n_;
  size_t pos_;
  size_t err_off_ = 0;
  bool annotations_ = false;
  std::string_view annotation_;
  std::vector<std::string_view> argv_;
};

// One key as commands (SET / RPUSH / SADD / ZADD / HSET in batches of 64 elements, then
// PEXPIREAT when it has an expire), for a base file in commands.
void AppendKeyAsCommands(std::string* out, std::string_view key, const Value& v,
                         int64_t expire_ms);

}  // namespace persist
