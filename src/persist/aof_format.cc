#include "persist/aof_format.h"

#include <algorithm>
#include <cstring>

#include "base/util.h"
#include "db/stream.h"
#include "net/reply.h"
#include "net/resp_parser.h"

namespace persist {

namespace {
constexpr size_t kManifestMaxLine = 1024;
constexpr size_t kItemsPerCommand = 64;

bool NeedsQuotes(std::string_view s) {
  if (s.empty()) return true;
  for (unsigned char c : s)
    if (c <= ' ' || c == '"' || c == '\'' || c == '\\' || c >= 127) return true;
  return false;
}

std::string Quoted(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < ' ' || c >= 127) {
          char b[8];
          snprintf(b, sizeof b, "\\x%02x", c);
          out += b;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out + "\"";
}

void AppendFile(std::string* out, const AofFile& f) {
  *out += "file ";
  *out += NeedsQuotes(f.name) ? Quoted(f.name) : f.name;
  *out += " seq " + std::to_string(f.seq) + " type ";
  out->push_back(f.type);
  out->push_back('\n');
}
}  // namespace

namespace {
// atoll's reading: optional blanks and sign, then the leading digits (0 when there are none).
int64_t LeadingInt(std::string_view v) {
  size_t i = 0;
  while (i < v.size() && isspace(static_cast<unsigned char>(v[i]))) i++;
  bool neg = i < v.size() && v[i] == '-';
  if (i < v.size() && (v[i] == '-' || v[i] == '+')) i++;
  int64_t n = 0;
  for (; i < v.size() && isdigit(static_cast<unsigned char>(v[i])) && n < INT64_MAX / 10; i++)
    n = n * 10 + (v[i] - '0');
  return neg ? -n : n;
}
}  // namespace

bool ParseAofManifest(std::string_view text, AofManifest* out, std::string* err,
                      ManifestErrorAt* where) {
  *out = AofManifest{};
  size_t lineno = 0, at = 0;
  int64_t max_incr = 0;
  auto fail = [&](const char* msg, std::string_view line) {
    *err = msg;
    if (where) {
      where->line = static_cast<int>(lineno);
      where->text.assign(line);
    }
    return false;
  };
  if (text.empty()) return fail("Found an empty AOF manifest", {});
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view raw = text.substr(at, std::min(end - at, kManifestMaxLine));
    at += raw.size();
    lineno++;
    if (raw[0] == '#') continue;  // comments count as lines, as the servers read them
    if (raw.back() != '\n') return fail("The AOF manifest file contains too long line", {});
    std::string_view line = raw;
    while (!line.empty() && strchr(" \t\r\n", line.back())) line.remove_suffix(1);
    while (!line.empty() && strchr(" \t\r\n", line.front())) line.remove_prefix(1);
    if (line.empty()) return fail("Invalid AOF manifest file format", line);
    std::vector<std::string> argv;
    if (!net::SplitArgs(line, &argv) || argv.size() < 6 || argv.size() % 2)
      return fail("Invalid AOF manifest file format", line);
    AofFile f;
    f.type = 0;
    for (size_t i = 0; i + 1 < argv.size(); i += 2) {
      const std::string& v = argv[i + 1];
      if (base::EqualsNoCase(argv[i], "file")) {
        f.name = v;
        if (v.find('/') != std::string::npos)
          return fail("File can't be a path, just a filename", line);
      } else if (base::EqualsNoCase(argv[i], "seq")) {
        f.seq = LeadingInt(v);
      } else if (base::EqualsNoCase(argv[i], "type")) {
        f.type = v.empty() ? 0 : v[0];
      }
    }
    if (f.name.empty() || f.seq == 0 || f.type == 0)
      return fail("Invalid AOF manifest file format", line);
    if (f.type == 'b') {
      if (out->has_base) return fail("Found duplicate base file information", line);
      out->has_base = true;
      out->base = f;
      out->base_seq = f.seq;
    } else if (f.type == 'h') {
      out->history.push_back(f);
    } else if (f.type == 'i') {
      if (f.seq <= max_incr) return fail("Found a non-monotonic sequence number", line);
      max_incr = f.seq;
      out->incr.push_back(f);
      out->incr_seq = f.seq;
    } else {
      return fail("Unknown AOF file type", line);
    }
  }
  return true;
}

std::string FormatAofManifest(const AofManifest& m) {
  std::string out;
  if (m.has_base) AppendFile(&out, m.base);
  for (auto& f : m.history) AppendFile(&out, f);
  for (auto& f : m.incr) AppendFile(&out, f);
  return out;
}

bool AofReader::Line(size_t* at, std::string_view* line) {
  const uint8_t* nl = static_cast<const uint8_t*>(memchr(p_ + *at, '\n', n_ - *at));
  if (!nl) return false;
  size_t end = static_cast<size_t>(nl - p_);
  size_t len = end - *at;
  if (len > 0 && p_[end - 1] == '\r') len--;
  *line = std::string_view(reinterpret_cast<const char*>(p_ + *at), len);
  *at = end + 1;
  return true;
}

AofReader::Status AofReader::Next() {
  argv_.clear();
  while (true) {
    if (pos_ >= n_) return kEnd;
    if (p_[pos_] != '*' && p_[pos_] != '#') {  // neither a command nor an annotation, even cut
      err_off_ = pos_;
      return kBadFormat;
    }
    size_t at = pos_;
    std::string_view line;
    if (!Line(&at, &line)) return kTruncated;
    if (!line.empty() && line[0] == '#') {  // annotation (#TS:<unix time> and the like)
      pos_ = at;
      if (!annotations_) continue;
      annotation_ = line;
      return kAnnotation;
    }
    int64_t argc;
    if (line.size() < 2 || line[0] != '*' || !base::ParseInt64(line.substr(1), &argc) ||
        argc < 1) {
      err_off_ = pos_;
      return kBadFormat;
    }
    for (int64_t i = 0; i < argc; i++) {
      size_t item = at;
      if (!Line(&at, &line)) return kTruncated;
      int64_t len;
      if (line.size() < 2 || line[0] != '$' || !base::ParseInt64(line.substr(1), &len) ||
          len < 0) {
        err_off_ = item;
        return kBadFormat;
      }
      if (static_cast<uint64_t>(len) + 2 > n_ - at) return kTruncated;
      argv_.emplace_back(reinterpret_cast<const char*>(p_ + at), static_cast<size_t>(len));
      at += static_cast<size_t>(len) + 2;
      if (p_[at - 2] != '\r' || p_[at - 1] != '\n') {
        err_off_ = at - 2;
        return kBadFormat;
      }
    }
    pos_ = at;
    return kCommand;
  }
}

namespace {
// A stream as the commands that rebuild it: its entries (XADD; an empty stream is made by an
// XADD trimmed to nothing), its counters (XSETID), its groups, consumers and pending entries.
void AppendStreamAsCommands(std::string* out, std::string_view key, db::Stream* s) {
  std::vector<std::string> args;
  auto emit = [&] {
    std::vector<std::string_view> argv(args.begin(), args.end());
    net::AppendCommand(out, argv);
  };
  if (s->length) {
    db::StreamIterator si(s, db::StreamID{}, db::kStreamMaxID, false);
    db::StreamID id;
    int64_t n;
    while (si.Next(&id, &n)) {
      args = {"XADD", std::string(key), id.ToString()};
      std::string_view f, val;
      for (int64_t i = 0; i < n; i++) {
        si.Field(&f, &val);
        args.emplace_back(f);
        args.emplace_back(val);
      }
      emit();
    }
  } else {
    args = {"XADD", std::string(key), "MAXLEN", "0", "0-1", "x", "y"};
    emit();
  }
  args = {"XSETID",       std::string(key),
          s->last_id.ToString(), "ENTRIESADDED",
          std::to_string(s->entries_added), "MAXDELETEDID",
          s->max_deleted_entry_id.ToString()};
  emit();
  for (auto& [name, cg] : s->groups) {
    args = {"XGROUP", "CREATE", std::string(key), name, cg->last_id.ToString(), "ENTRIESREAD",
            std::to_string(cg->entries_read)};
    emit();
    for (auto& [cname, consumer] : cg->consumers) {
      if (!consumer->pel.empty()) continue;
      args = {"XGROUP", "CREATECONSUMER", std::string(key), name, cname};
      emit();
    }
    for (auto& [id, nack] : cg->pel) {
      args = {"XCLAIM", std::string(key), name, nack.consumer->name, "0", id.ToString(), "TIME",
              std::to_string(nack.delivery_time), "RETRYCOUNT",
              std::to_string(nack.delivery_count), "JUSTID", "FORCE"};
      emit();
    }
  }
}
}  // namespace

void AppendKeyAsCommands(std::string* out, std::string_view key, const Value& v,
                         int64_t expire_ms) {
  std::vector<std::string_view> argv;
  std::vector<std::string> scores;
  auto batches = [&](std::string_view cmd, size_t n, size_t per_item, auto&& item) {
    for (size_t i = 0; i < n; i += kItemsPerCommand) {
      argv.assign({cmd, key});
      scores.clear();
      size_t end = std::min(n, i + kItemsPerCommand);
      scores.reserve(end - i);
      for (size_t j = i; j < end; j++) item(j);
      (void)per_item;
      net::AppendCommand(out, argv);
    }
  };
  switch (v.kind) {
    case Kind::kString:
      net::AppendCommand(out, {"SET", key, v.str});
      break;
    case Kind::kList:
      batches("RPUSH", v.elems.size(), 1, [&](size_t j) { argv.push_back(v.elems[j]); });
      break;
    case Kind::kSet:
      batches("SADD", v.elems.size(), 1, [&](size_t j) { argv.push_back(v.elems[j]); });
      break;
    case Kind::kZSet:
      batches("ZADD", v.zelems.size(), 2, [&](size_t j) {
        scores.push_back(base::FormatDouble(v.zelems[j].second));
        argv.push_back(scores.back());
        argv.push_back(v.zelems[j].first);
      });
      break;
    case Kind::kHash:
      batches("HMSET", v.pairs.size(), 2, [&](size_t j) {
        argv.push_back(v.pairs[j].first);
        argv.push_back(v.pairs[j].second);
      });
      break;
    case Kind::kStream:
      AppendStreamAsCommands(out, key, v.stream.get());
      break;
  }
  if (expire_ms >= 0) {
    std::string ms = std::to_string(expire_ms);
    net::AppendCommand(out, {"PEXPIREAT", key, ms});
  }
}

}  // namespace persist
