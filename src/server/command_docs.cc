// The `arguments` of COMMAND DOCS: parses command_args.inc once and renders it as Valkey does.
#include "server/command_docs.h"

#include <map>

#include "base/log.h"

namespace server {

namespace {

const DocArgsLine kLines[] = {
#include "server/command_args.inc"
};

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}
bool IsTokenChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '*' || c == '$';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Recursive descent over one DSL string; the first error stops it.
class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::string Run(std::vector<DocArg>* out) {
    List(out, '\0');
    if (err_.empty() && pos_ != s_.size()) Fail("unexpected character");
    return err_;
  }

 private:
  bool Ok() const { return err_.empty(); }
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) pos_++;
  }
  void Fail(const std::string& what) {
    if (err_.empty()) err_ = "at offset " + std::to_string(pos_) + ": " + what;
  }
  bool Eat(char c) {
    if (Peek() != c) return false;
    pos_++;
    return true;
  }
  bool Expect(char c) {
    if (Eat(c)) return true;
    Fail(std::string("expected '") + c + "'");
    return false;
  }
  std::string Span(bool (*pred)(char)) {
    size_t start = pos_;
    while (pos_ < s_.size() && pred(s_[pos_])) pos_++;
    return std::string(s_.substr(start, pos_ - start));
  }
  std::string Quoted() {  // 'text' (no quote inside)
    size_t end = s_.find('\'', pos_ + 1);
    if (end == std::string_view::npos) {
      Fail("unterminated quote");
      return "";
    }
    std::string v(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return v;
  }
  std::string Version() {  // digits ('.' digits)*; a dot not followed by a digit ends it
    size_t start = pos_;
    while (IsDigit(Peek())) {
      while (IsDigit(Peek())) pos_++;
      if (Peek() == '.' && pos_ + 1 < s_.size() && IsDigit(s_[pos_ + 1])) pos_++;
    }
    if (pos_ == start) Fail("expected a version");
    return std::string(s_.substr(start, pos_ - start));
  }

  // Arguments separated by blanks (sep '\0') or by '|' (oneof); stops before `close`.
  void List(std::vector<DocArg>* out, char close, bool alternatives = false) {
    SkipSpace();
    bool spaced = true;
    while (Ok()) {
      if (Peek() == close) {
        if (out->empty()) Fail("empty argument list");
        return;
      }
      if (alternatives && !out->empty() && !Expect('|')) return;
      if (!alternatives && !out->empty() && !spaced) return Fail("expected a blank");
      SkipSpace();
      out->emplace_back();
      Arg(&out->back());
      size_t before = pos_;
      SkipSpace();
      spaced = pos_ > before;
    }
  }

  void Arg(DocArg* a) {
    bool bracket = Eat('[');
    if (bracket) SkipSpace();
    Spec(a);
    if (!Ok()) return;
    if (bracket) {
      SkipSpace();
      if (!Expect(']')) return;
      a->optional = true;
    }
  }

  void Spec(DocArg* a) {
    a->name = Span(IsNameChar);
    if (a->name.empty()) return Fail("expected an argument name");
    std::string display = a->name;
    if (Eat('=')) {
      if (Peek() != '\'') return Fail("expected a quoted display text");
      display = Quoted();
    }
    if (!Expect(':')) return;
    a->type = Span([](char c) { return (c >= 'a' && c <= 'z') || c == '-'; });
    static const char* kPlain[] = {"key",     "string",    "integer",   "double",
                                   "pattern", "unix-time", "pure-token"};
    bool plain = false;
    for (const char* t : kPlain) plain |= a->type == t;
    if (plain) {
      a->display = display;
    } else if (a->type == "oneof" || a->type == "block") {
      if (display != a->name) return Fail("a container has no display text");
      if (!Expect('(')) return;
      List(&a->args, ')', a->type == "oneof");
      if (!Ok() || !Expect(')')) return;
    } else {
      return Fail("unknown type '" + a->type + "'");
    }
    if (a->type == "key") {
      a->key_spec_index = next_key_++;
      if (Eat('#')) {
        std::string n = Span(IsDigit);
        if (n.empty()) return Fail("expected a key spec index");
        a->key_spec_index = std::stoi(n);
      }
    }
    if (Eat(':')) {
      bool quoted = Peek() == '\'';
      a->token = quoted ? Quoted() : Span(IsTokenChar);
      if (a->token.empty() && !quoted) return Fail("expected a token");
      a->has_token = true;
    } else if (a->type == "pure-token") {
      return Fail("a pure-token needs a token");
    }
    // Modifiers, each at most once: @since !deprecated_since ... (multiple) ...+ (token repeats).
    while (Ok()) {
      if (Eat('@')) {
        if (!a->since.empty()) return Fail("since given twice");
        a->since = Version();
      } else if (Eat('!')) {
        if (!a->deprecated_since.empty()) return Fail("deprecated_since given twice");
        a->deprecated_since = Version();
      } else if (s_.substr(pos_, 3) == "...") {
        if (a->multiple) return Fail("multiple given twice");
        pos_ += 3;
        a->multiple = true;
        a->multiple_token = Eat('+');
      } else {
        break;
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  int next_key_ = 0;
  std::string err_;
};

const std::map<std::string, std::vector<DocArg>, std::less<>>& Table() {
  static const auto* table = [] {
    auto* m = new std::map<std::string, std::vector<DocArg>, std::less<>>;
    for (const DocArgsLine& l : kLines) {
      std::vector<DocArg> args;
      std::string err = ParseDocArgs(l.dsl, &args);
      if (!err.empty()) {
        LOG_WARNING("command_args.inc: %s: %s", l.fullname, err.c_str());
        continue;
      }
      (*m)[l.fullname] = std::move(args);
    }
    return m;
  }();
  return *table;
}

}  // namespace

std::span<const DocArgsLine> DocArgsLines() { return kLines; }

std::string ParseDocArgs(std::string_view dsl, std::vector<DocArg>* out) {
  out->clear();
  return Parser(dsl).Run(out);
}

const std::vector<DocArg>* DocArguments(std::string_view fullname) {
  auto& t = Table();
  auto it = t.find(fullname);
  return it == t.end() ? nullptr : &it->second;
}

void ReplyDocArguments(net::Reply& r, const std::vector<DocArg>& args) {
  r.ArrayLen(static_cast<int64_t>(args.size()));
  for (const DocArg& a : args) {
    bool container = a.type == "oneof" || a.type == "block";
    int flags = a.optional + a.multiple + a.multiple_token;
    r.MapLen(2 + !container + (a.key_spec_index >= 0) + a.has_token + !a.since.empty() +
             !a.deprecated_since.empty() + (flags > 0) + container);
    r.Bulk("name");
    r.Bulk(a.name);
    r.Bulk("type");
    r.Bulk(a.type);
    if (!container) {
      r.Bulk("display_text");
      r.Bulk(a.display);
    }
    if (a.key_spec_index >= 0) {
      r.Bulk("key_spec_index");
      r.Int(a.key_spec_index);
    }
    if (a.has_token) {
      r.Bulk("token");
      r.Bulk(a.token);
    }
    if (!a.since.empty()) {
      r.Bulk("since");
      r.Bulk(a.since);
    }
    if (!a.deprecated_since.empty()) {
      r.Bulk("deprecated_since");
      r.Bulk(a.deprecated_since);
    }
    if (flags > 0) {
      r.Bulk("flags");
      r.SetLen(flags);
      if (a.optional) r.Simple("optional");
      if (a.multiple) r.Simple("multiple");
      if (a.multiple_token) r.Simple("multiple_token");
    }
    if (container) {
      r.Bulk("arguments");
      ReplyDocArguments(r, a.args);
    }
  }
}

}  // namespace server
