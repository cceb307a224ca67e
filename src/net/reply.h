// Reply encoder: RESP2 or RESP3 into an output buffer.
#pragma once
#include <cstdint>
#include <string>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace net {

// A command as a RESP array of bulk strings: what a client sends (MIGRATE to its target, a
// replica to its primary) and what the replication stream carries.
void AppendCommand(std::string* out, const std::string_view* argv, size_t argc);
inline void AppendCommand(std::string* out, std::initializer_list<std::string_view> argv) {
  AppendCommand(out, argv.begin(), argv.size());
}
inline void AppendCommand(std::string* out, const std::vector<std::string_view>& argv) {
  AppendCommand(out, argv.data(), argv.size());
}
inline std::string Command(std::initializer_list<std::string_view> argv) {
  std::string out;
  AppendCommand(&out, argv);
  return out;
}

// Called with the error code ("ERR", "WRONGTYPE", ...) of every error reply (errorstats) and
// its message as written: "-CODE text", or the text alone for ERR.
void SetErrorHook(void (*hook)(std::string_view code, std::string_view text));

class Reply {
 public:
  Reply(std::string* out, int resp) : out_(out), resp_(resp) {}
  int resp() const { return resp_; }
  std::string* buffer() { return out_; }

  void Simple(std::string_view s);  // +s
  void Ok() { out_->append("+OK\r\n", 5); }
  // Error line without CRLF: "-CODE text" carries its own code, plain "text" gets "ERR ".
  void Error(std::string_view msg);
  void Int(int64_t v);
  void Bulk(std::string_view s);
  void BulkInt(int64_t v);  // integer as a bulk string
  void Null();              // $-1 / _
  void NullArray();         // *-1 / _
  void ArrayLen(int64_t n);
  void MapLen(int64_t n);   // *2n in RESP2
  void SetLen(int64_t n);   // * in RESP2
  void PushLen(int64_t n);  // > in RESP3, * in RESP2
  void AttrLen(int64_t n);  // | in RESP3 (caller skips in RESP2)
  void Double(double d);    // , in RESP3, bulk in RESP2 (shortest round-trip text)
  void Bool(bool b);        // #t/#f, :1/:0 in RESP2
  void BigNum(std::string_view digits);
  void Verbatim(std::string_view s, std::string_view ext = "txt");
  void Raw(std::string_view s) { out_->append(s); }
  // Deferred length: reserve, then fill when the count is known.
  size_t DeferLen();
  void SetDeferredArrayLen(size_t handle, int64_t n) { SetDeferred(handle, '*', n); }
  void SetDeferredMapLen(size_t handle, int64_t n) {
    if (resp_ >= 3)
      SetDeferred(handle, '%', n);
    else
      SetDeferred(handle, '*', n * 2);
  }
  void SetDeferredSetLen(size_t handle, int64_t n) {
    SetDeferred(handle, resp_ >= 3 ? '~' : '*', n);
  }

 private:
  void Header(char c, int64_t n);
  void SetDeferred(size_t handle, char c, int64_t n);
  std::string* out_;
  int resp_;
};

}  // namespace net
