// Reply encoding helpers.
#include "net/reply.h"

#include <charconv>
#include <cstring>

#include "base/util.h"

namespace net {
namespace {
void (*g_error_hook)(std::string_view, std::string_view) = nullptr;
}
void SetErrorHook(void (*hook)(std::string_view code, std::string_view text)) {
  g_error_hook = hook;
}

void Reply::Header(char c, int64_t n) {
  char buf[32];
  buf[0] = c;
  auto r = std::to_chars(buf + 1, buf + 30, n);
  r.ptr[0] = '\r';
  r.ptr[1] = '\n';
  out_->append(buf, r.ptr + 2 - buf);
}

void Reply::Simple(std::string_view s) {
  out_->push_back('+');
  out_->append(s);
  out_->append("\r\n", 2);
}

void Reply::Error(std::string_view msg) {
  // As in Valkey: a message starting with '-' carries its own code, else ERR is the code.
  if (!msg.empty() && msg[0] == '-') {
    if (g_error_hook) g_error_hook(msg.substr(1, msg.find(' ') - 1), msg);
    out_->push_back('-');
    msg.remove_prefix(1);
  } else {
    out_->append("-ERR ", 5);
    if (g_error_hook) g_error_hook("ERR", msg);
  }
  // Newlines would break the protocol: replace them.
  for (char c : msg) out_->push_back((c == '\r' || c == '\n') ? ' ' : c);
  out_->append("\r\n", 2);
}

void Reply::Int(int64_t v) { Header(':', v); }

void Reply::Bulk(std::string_view s) {
  // Small strings (the common case) go out in one append: header, bytes and CRLF.
  if (s.size() <= 256) {
    char buf[256 + 32];
    buf[0] = '$';
    auto r = std::to_chars(buf + 1, buf + 24, s.size());
    char* p = r.ptr;
    *p++ = '\r';
    *p++ = '\n';
    if (!s.empty()) memcpy(p, s.data(), s.size());  // an empty view may have no data pointer
    p += s.size();
    *p++ = '\r';
    *p++ = '\n';
    out_->append(buf, p - buf);
    return;
  }
  Header('$', static_cast<int64_t>(s.size()));
  out_->append(s);
  out_->append("\r\n", 2);
}

void Reply::BulkInt(int64_t v) {
  char buf[24];
  Bulk(std::string_view(buf, base::FormatInt64(v, buf)));
}

void Reply::Null() {
  if (resp_ >= 3)
    out_->append("_\r\n", 3);
  else
    out_->append("$-1\r\n", 5);
}

void Reply::NullArray() {
  if (resp_ >= 3)
    out_->append("_\r\n", 3);
  else
    out_->append("*-1\r\n", 5);
}

void Reply::ArrayLen(int64_t n) { Header('*', n); }
void Reply::MapLen(int64_t n) {
  if (resp_ >= 3)
    Header('%', n);
  else
    Header('*', n * 2);
}
void Reply::SetLen(int64_t n) { Header(resp_ >= 3 ? '~' : '*', n); }
void Reply::PushLen(int64_t n) { Header(resp_ >= 3 ? '>' : '*', n); }
void Reply::AttrLen(int64_t n) { Header('|', n); }

void Reply::Double(double d) {
  std::string s = base::FormatDouble(d);
  if (resp_ >= 3) {
    out_->push_back(',');
    out_->append(s);
    out_->append("\r\n", 2);
  } else {
    Bulk(s);
  }
}

void Reply::Bool(bool b) {
  if (resp_ >= 3)
    out_->append(b ? "#t\r\n" : "#f\r\n", 4);
  else
    out_->append(b ? ":1\r\n" : ":0\r\n", 4);
}

void Reply::BigNum(std::string_view digits) {
  if (resp_ >= 3) {
    out_->push_back('(');
    out_->append(digits);
    out_->append("\r\n", 2);
  } else {
    Bulk(digits);
  }
}

void Reply::Verbatim(std::string_view s, std::string_view ext) {
  if (resp_ < 3) {
    Bulk(s);
    return;
  }
  Header('=', static_cast<int64_t>(s.size() + 4));
  out_->append(ext);
  out_->push_back(':');
  out_->append(s);
  out_->append("\r\n", 2);
}

size_t Reply::DeferLen() {
  size_t h = out_->size();
  out_->append(16, ' ');  // placeholder, replaced by SetDeferred
  return h;
}

void Reply::SetDeferred(size_t handle, char c, int64_t n) {
  char buf[32];
  buf[0] = c;
  auto r = std::to_chars(buf + 1, buf + 30, n);
  r.ptr[0] = '\r';
  r.ptr[1] = '\n';
  out_->replace(handle, 16, buf, r.ptr + 2 - buf);
}

void AppendCommand(std::string* out, const std::string_view* argv, size_t argc) {
  char num[32];
  auto head = [&](char t, size_t n) {
    num[0] = t;
    auto r = std::to_chars(num + 1, num + 30, n);
    r.ptr[0] = '\r';
    r.ptr[1] = '\n';
    out->append(num, r.ptr + 2 - num);
  };
  head('*', argc);
  for (size_t i = 0; i < argc; i++) {
    head('$', argv[i].size());
    out->append(argv[i]);
    out->append("\r\n", 2);
  }
}

}  // namespace net
