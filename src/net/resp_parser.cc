// Request parsing. Error texts are those clients and tools expect from Valkey.
#include "net/resp_parser.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "base/util.h"

namespace net {

void RequestParser::Reset() {
  offs_.clear();
  multibulk_left_ = 0;
  bulk_len_ = -1;
  cur_ = cmd_start_ = 0;
}

void RequestParser::TrimBetweenCommands(size_t keep_args) {
  if (multibulk_left_ > 0) return;
  if (args_.capacity() > keep_args) std::vector<std::string_view>().swap(args_);
  if (offs_.capacity() > keep_args) std::vector<std::pair<size_t, size_t>>().swap(offs_);
  if (inline_args_.capacity() > keep_args) std::vector<std::string>().swap(inline_args_);
}

size_t RequestParser::PartialArgsBytes() const {
  size_t n = 0;
  if (multibulk_left_ > 0)
    for (auto& o : offs_) n += o.second;
  return n;
}

void RequestParser::Shift(size_t n) {
  if (multibulk_left_ == 0) return;
  cmd_start_ -= n;
  cur_ -= n;
  for (auto& o : offs_) o.first -= n;
}

RequestParser::Status RequestParser::Parse(const char* buf, size_t len, size_t* pos,
                                           const ParserLimits& lim) {
  if (multibulk_left_ > 0) return ParseMultibulk(buf, len, pos, lim);
  if (*pos >= len) return kNeedMore;
  last_start_ = *pos;
  if (buf[*pos] == '*') return ParseMultibulk(buf, len, pos, lim);
  return ParseInline(buf, len, pos, lim);
}

RequestParser::Status RequestParser::ParseInline(const char* buf, size_t len, size_t* pos,
                                                 const ParserLimits& lim) {
  const char* start = buf + *pos;
  const char* nl = static_cast<const char*>(memchr(start, '\n', len - *pos));
  // Valkey looks for the newline with strchr: a NUL byte before it hides it, so the line
  // never completes and waits for more input until it is too big.
  if (nl && memchr(start, '\0', nl - start)) nl = nullptr;
  if (!nl) {
    if (len - *pos > lim.max_inline) return Fail("Protocol error: too big inline request");
    return kNeedMore;
  }
  const char* end = nl;
  if (end != start && end[-1] == '\r') end--;
  std::string_view line(start, end - start);
  if (!SplitArgs(line, &inline_args_)) return Fail("Protocol error: unbalanced quotes in request");
  if (lim.trusted && !line.empty()) return Fail("Protocol error: inline command from primary");
  *pos = nl - buf + 1;
  if (inline_args_.empty()) return kEmpty;
  args_.clear();
  for (auto& a : inline_args_) args_.emplace_back(a);
  return kCommand;
}

namespace {
// Finds "\r\n" ending a length line starting at p; returns offset of '\r' or npos.
// Mirrors the server: the line ends at the first '\r', which must be followed by '\n', and
// (strchr) a NUL byte before that '\r' hides it.
size_t FindLineEnd(const char* buf, size_t from, size_t len) {
  const void* r = memchr(buf + from, '\r', len - from);
  if (!r) return std::string::npos;
  size_t cr = static_cast<const char*>(r) - buf;
  if (memchr(buf + from, '\0', cr - from)) return std::string::npos;
  return cr;
}

// The usual length line, "<digits>\r\n" from `from` (no leading zero, at most 18 digits),
// read in one pass: true with its value and the '\r''s offset, which the general path
// (FindLineEnd, then ParseInt64) would give too. False for anything else, left to that path.
bool FastLength(const char* buf, size_t from, size_t len, int64_t* n, size_t* cr) {
  size_t i = from, end = std::min(len, from + 18);
  int64_t v = 0;
  while (i < end && static_cast<unsigned char>(buf[i] - '0') < 10) v = v * 10 + (buf[i++] - '0');
  if (i == from || i + 1 >= len || buf[i] != '\r' || buf[i + 1] != '\n') return false;
  if (buf[from] == '0' && i - from > 1) return false;
  *n = v;
  *cr = i;
  return true;
}
}  // namespace

RequestParser::Status RequestParser::ParseMultibulk(const char* buf, size_t len, size_t* pos,
                                                    const ParserLimits& lim) {
  if (multibulk_left_ == 0) {
    size_t cr;
    int64_t n;
    if (!FastLength(buf, *pos + 1, len, &n, &cr)) {
      cr = FindLineEnd(buf, *pos, len);
      if (cr == std::string::npos) {
        if (len - *pos > lim.max_inline) return Fail("Protocol error: too big mbulk count string");
        return kNeedMore;
      }
      if (cr + 1 >= len) return kNeedMore;  // need the '\n'
      if (!base::ParseInt64(std::string_view(buf + *pos + 1, cr - *pos - 1), &n))
        return Fail("Protocol error: invalid multibulk length");
    }
    if (n > INT_MAX) return Fail("Protocol error: invalid multibulk length");
    if (n > 10 && lim.unauthenticated)
      return Fail("Protocol error: unauthenticated multibulk length");
    cmd_start_ = *pos;  // keep the header with the command until it completes
    *pos = cr + 2;
    if (n <= 0) return kEmpty;
    multibulk_left_ = n;
    bulk_len_ = -1;
    offs_.clear();
    cur_ = *pos;
  }
  while (multibulk_left_ > 0) {
    if (bulk_len_ == -1) {
      if (cur_ >= len) break;
      size_t cr;
      int64_t n;
      if (buf[cur_] != '$' || !FastLength(buf, cur_ + 1, len, &n, &cr)) {
        cr = FindLineEnd(buf, cur_, len);
        if (cr == std::string::npos) {
          if (len - cur_ > lim.max_inline) return Fail("Protocol error: too big bulk count string");
          break;
        }
        if (cr + 1 >= len) break;
        if (buf[cur_] != '$') {
          return Fail(std::string("Protocol error: expected '$', got '") + buf[cur_] + "'");
        }
        if (!base::ParseInt64(std::string_view(buf + cur_ + 1, cr - cur_ - 1), &n))
          return Fail("Protocol error: invalid bulk length");
      }
      if (n < 0 || (!lim.trusted && n > lim.max_bulk_len))
        return Fail("Protocol error: invalid bulk length");
      if (n > 16384 && lim.unauthenticated)
        return Fail("Protocol error: unauthenticated bulk length");
      cur_ = cr + 2;
      bulk_len_ = n;
    }
    if (len - cur_ < static_cast<size_t>(bulk_len_) + 2) break;
    offs_.emplace_back(cur_, static_cast<size_t>(bulk_len_));
    cur_ += bulk_len_ + 2;
    bulk_len_ = -1;
    multibulk_left_--;
  }
  if (multibulk_left_ > 0) {
    *pos = cmd_start_;  // the caller may drop what lies before the unfinished command
    return kNeedMore;
  }
  args_.clear();
  for (auto& o : offs_) args_.emplace_back(buf + o.first, o.second);
  last_start_ = cmd_start_;
  *pos = cur_;
  return kCommand;
}

bool SplitArgs(std::string_view line, std::vector<std::string>* out) {
  out->clear();
  // The server splits a C string: nothing after a NUL byte exists for it (a NUL inside quotes
  // leaves them unterminated).
  if (size_t z = line.find('\0'); z != std::string_view::npos) line = line.substr(0, z);
  size_t i = 0, n = line.size();
  auto is_hex = [](char c) { return isxdigit(static_cast<unsigned char>(c)); };
  auto hex_val = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return c - 'A' + 10;
  };
  while (true) {
    while (i < n && isspace(static_cast<unsigned char>(line[i]))) i++;
    if (i >= n) return true;
    std::string cur;
    bool inq = false, insq = false, done = false;
    while (!done) {
      if (inq) {
        if (i >= n) return false;
        char c = line[i];
        if (c == '\\' && i + 3 < n && line[i + 1] == 'x' && is_hex(line[i + 2]) &&
            is_hex(line[i + 3])) {
          cur.push_back(static_cast<char>(hex_val(line[i + 2]) * 16 + hex_val(line[i + 3])));
          i += 3;
        } else if (c == '\\' && i + 1 < n) {
          i++;
          char e = line[i];
          switch (e) {
            case 'n':
              cur.push_back('\n');
              break;
            case 'r':
              cur.push_back('\r');
              break;
            case 't':
              cur.push_back('\t');
              break;
            case 'b':
              cur.push_back('\b');
              break;
            case 'a':
              cur.push_back('\a');
              break;
            default:
              cur.push_back(e);
              break;
          }
        } else if (c == '"') {
          // A closing quote must be followed by a space or the end.
          if (i + 1 < n && !isspace(static_cast<unsigned char>(line[i + 1]))) return false;
          done = true;
        } else {
          cur.push_back(c);
        }
      } else if (insq) {
        if (i >= n) return false;
        char c = line[i];
        if (c == '\\' && i + 1 < n && line[i + 1] == '\'') {
          i++;
          cur.push_back('\'');
        } else if (c == '\'') {
          if (i + 1 < n && !isspace(static_cast<unsigned char>(line[i + 1]))) return false;
          done = true;
        } else {
          cur.push_back(c);
        }
      } else {
        if (i >= n) {
          done = true;
          break;
        }
        char c = line[i];
        switch (c) {
          case ' ':
          case '\n':
          case '\r':
          case '\t':
            done = true;
            break;
          case '"':
            inq = true;
            break;
          case '\'':
            insq = true;
            break;
          default:
            cur.push_back(c);
            break;
        }
      }
      if (i < n) i++;
    }
    out->push_back(std::move(cur));
  }
}

namespace {
// A decimal after `*` or `$` and its CRLF, at most 10 digits; false if not that.
bool PeekLength(const char* buf, size_t len, size_t* pos, char prefix, int64_t* out) {
  size_t p = *pos;
  if (p >= len || buf[p] != prefix) return false;
  p++;
  int64_t v = 0;
  size_t digits = 0;
  while (p < len && buf[p] >= '0' && buf[p] <= '9' && digits < 10) {
    v = v * 10 + (buf[p++] - '0');
    digits++;
  }
  if (digits == 0 || p + 1 >= len || buf[p] != '\r' || buf[p + 1] != '\n') return false;
  *pos = p + 2;
  *out = v;
  return true;
}
}  // namespace

bool PeekCommand(const char* buf, size_t len, size_t pos, std::string_view* arg1, size_t* next) {
  int64_t argc;
  if (!PeekLength(buf, len, &pos, '*', &argc) || argc < 2 || argc > 64) return false;
  for (int64_t i = 0; i < argc; i++) {
    int64_t n;
    if (!PeekLength(buf, len, &pos, '$', &n)) return false;
    if (len - pos < static_cast<size_t>(n) + 2) return false;  // not all here yet
    if (buf[pos + n] != '\r' || buf[pos + n + 1] != '\n') return false;
    if (i == 1) *arg1 = std::string_view(buf + pos, static_cast<size_t>(n));
    pos += static_cast<size_t>(n) + 2;
  }
  *next = pos;
  return true;
}

}  // namespace net
