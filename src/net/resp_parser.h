// Incremental, bounded parser of client requests (RESP multibulk and inline commands).
//
// Pure: it reads a byte buffer owned by the caller and never does I/O, so every split point of
// a stream can be tested. Arguments of a completed command are views into the buffer (or into
// the parser's own storage for inline commands) and stay valid until the next Parse() call or
// until the buffer changes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace net {

struct ParserLimits {
  int64_t max_bulk_len = 512LL * 1024 * 1024;  // proto-max-bulk-len
  size_t max_inline = 64 * 1024;               // inline line / length line without newline
  bool unauthenticated = false;                // tighter limits before AUTH
  bool trusted = false;                        // primary link: no bulk limit, no inline
};

// A look at a complete multibulk command at buf[pos..len) without parsing it: its second
// argument (a command's first key, usually) in *arg1 and where the command ends in *next. False
// when the bytes there are not a whole command of 2 to 64 arguments in well-formed multibulk
// (an inline command, a partial one, anything odd: the parser will say what it is). The
// pipeline's look-ahead uses it to load a later command's key while this one runs.
bool PeekCommand(const char* buf, size_t len, size_t pos, std::string_view* arg1, size_t* next);

class RequestParser {
 public:
  enum Status { kNeedMore, kCommand, kEmpty, kError };

  // Parses from buf[*pos..len). kCommand: args() holds the command and *pos is past it.
  // kEmpty: an empty line or *0 / *-1 was consumed (no command). kNeedMore: the data so far is
  // a valid prefix; *pos is left at the start of the unfinished command (state is kept, so the
  // caller may drop bytes before *pos with Shift()). kError: error() says why.
  Status Parse(const char* buf, size_t len, size_t* pos, const ParserLimits& lim);
  const std::vector<std::string_view>& args() const { return args_; }
  const std::string& error() const { return error_; }
  // The caller removed n bytes from the front of its buffer.
  void Shift(size_t n);
  // Bytes the unfinished command still needs, when known (to pre-size the buffer).
  size_t PendingBulkLen() const { return bulk_len_ > 0 ? static_cast<size_t>(bulk_len_) : 0; }
  // Where in the buffer that bulk's bytes start (when PendingBulkLen() is not 0).
  size_t PendingBulkStart() const { return cur_; }
  bool InMultibulk() const { return multibulk_left_ > 0; }
  // Bytes of the arguments of an unfinished multibulk command received so far (argv-mem).
  size_t PartialArgsBytes() const;
  // Where the command just returned (kCommand/kEmpty) began in the buffer, header included:
  // [LastStart(), *pos) are its raw bytes (the replication stream is proxied byte for byte).
  size_t LastStart() const { return last_start_; }
  void Reset();
  // Between commands: gives back the room a command of many arguments left in the parser's
  // arrays (args() is emptied), so one huge MSET does not keep megabytes per client.
  void TrimBetweenCommands(size_t keep_args);

 private:
  Status ParseInline(const char* buf, size_t len, size_t* pos, const ParserLimits& lim);
  Status ParseMultibulk(const char* buf, size_t len, size_t* pos, const ParserLimits& lim);
  Status Fail(const std::string& msg) {
    error_ = msg;
    return kError;
  }

  std::vector<std::string_view> args_;
  std::vector<std::pair<size_t, size_t>> offs_;  // pending multibulk args (offset, len)
  std::vector<std::string> inline_args_;
  int64_t multibulk_left_ = 0;
  int64_t bulk_len_ = -1;
  size_t cmd_start_ = 0;  // offset of the current multibulk command (its '*')
  size_t last_start_ = 0;
  size_t cur_ = 0;  // parse position within the current multibulk command
  std::string error_;
};

// Splits an inline line as the server does (quotes, escapes; a NUL byte ends the line); false
// on unbalanced quotes.
bool SplitArgs(std::string_view line, std::vector<std::string>* out);

}  // namespace net
