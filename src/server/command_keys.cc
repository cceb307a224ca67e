// Finding the keys of a call from the command's key specs.
#include "server/command_keys.h"

#include <algorithm>
#include <climits>

#include "base/util.h"
#include "server/command.h"

namespace server {
namespace {

// One spec over argv; false when the spec cannot place its keys in these arguments.
bool SpecKeys(const CommandSpec* cmd, const KeySpec& s, const std::vector<std::string_view>& argv,
              std::vector<KeyRef>* out) {
  int argc = static_cast<int>(argv.size());
  int first = 0;
  switch (s.begin) {
    case KeySpec::kIndex:
      first = s.index;
      break;
    case KeySpec::kKeyword: {
      int start = s.startfrom > 0 ? s.startfrom : argc + s.startfrom;
      int end = s.startfrom > 0 ? argc - 1 : 1;
      for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break;
        if (base::EqualsNoCase(argv[i], s.keyword)) {
          first = i + 1;
          break;
        }
      }
      if (!first) return true;  // no keyword: no keys from this spec
      break;
    }
    case KeySpec::kBeginUnknown:
      return false;
  }
  int last, step;
  switch (s.find) {
    case KeySpec::kRange:
      step = s.keystep;
      if (s.lastkey >= 0)
        last = first + s.lastkey;
      else if (!s.limit)
        last = argc + s.lastkey;
      else
        last = first + ((argc - first) / s.limit + s.lastkey);
      break;
    case KeySpec::kKeynum: {
      step = s.keystep;
      int idx = first + s.keynumidx;
      int64_t n;
      if (idx >= argc || !base::ParseInt64(argv[idx], &n) || n < 0 || n > INT_MAX) return false;
      first += s.firstkey;
      last = first + static_cast<int>(n) - 1;
      break;
    }
    default:
      return false;
  }
  if (last >= argc || last < first || first >= argc) return false;
  for (int i = first; i <= last; i += step) {
    // Fixed-arity commands are checked before this; variadic ones report their own error.
    if (i >= argc || i < first) {
      if (cmd->arity < 0) continue;
      return false;
    }
    out->push_back({i, s.flags});
  }
  return !(s.flags & kKeyIncomplete);
}

uint32_t AllSpecFlags(const CommandSpec* cmd) {
  uint32_t f = 0;
  for (auto& s : cmd->key_specs) f |= s.flags;
  return f;
}

bool HasRealKeySpec(const CommandSpec* cmd) {
  for (auto& s : cmd->key_specs)
    if (!(s.flags & kKeyNotKey)) return true;
  return false;
}

// Builders for the generated table.
struct Begin {
  KeySpec::Begin kind;
  int index;
  const char* keyword;
  int startfrom;
};
struct Find {
  KeySpec::Find kind;
  int a, b, c;
};
constexpr Begin Index(int i) { return {KeySpec::kIndex, i, nullptr, 0}; }
constexpr Begin Keyword(const char* k, int from) { return {KeySpec::kKeyword, 0, k, from}; }
constexpr Begin UnknownBegin() { return {KeySpec::kBeginUnknown, 0, nullptr, 0}; }
constexpr Find Range(int lastkey, int keystep, int limit) {
  return {KeySpec::kRange, lastkey, keystep, limit};
}
constexpr Find Keynum(int keynumidx, int firstkey, int keystep) {
  return {KeySpec::kKeynum, keynumidx, firstkey, keystep};
}
constexpr Find UnknownFind() { return {KeySpec::kFindUnknown, 0, 0, 0}; }
KeySpec Spec(uint32_t flags, Begin b, Find f) {
  KeySpec s;
  s.flags = flags;
  s.begin = b.kind;
  s.index = b.index;
  s.keyword = b.keyword;
  s.startfrom = b.startfrom;
  s.find = f.kind;
  if (f.kind == KeySpec::kRange) {
    s.lastkey = f.a;
    s.keystep = f.b;
    s.limit = f.c;
  } else if (f.kind == KeySpec::kKeynum) {
    s.keynumidx = f.a;
    s.firstkey = f.b;
    s.keystep = f.c;
  }
  return s;
}

struct SpecEntry {
  const char* fullname;
  std::vector<KeySpec> specs;
};
const std::vector<SpecEntry>& SpecTable() {
  static const std::vector<SpecEntry> t = {
#include "server/command_keyspecs.inc"
  };
  return t;
}

// SET's key is overwritten, unless GET also reads it (Valkey's variable flags).
bool SetKeys(const std::vector<std::string_view>& argv, std::vector<KeyRef>* out) {
  uint32_t flags = kKeyOW | kKeyUpdate;
  for (size_t i = 3; i < argv.size(); i++)
    if (base::EqualsNoCase(argv[i], "get")) {
      flags = kKeyRW | kKeyAccess | kKeyUpdate;
      break;
    }
  out->push_back({1, flags});
  return true;
}

// MIGRATE moves argv[3], or with KEYS (and an empty argv[3]) every argument after KEYS. The
// options before KEYS are skipped with their values, so a password spelled "keys" is no
// keyword. KEYS with a non-empty argv[3] is MIGRATE's syntax error: no keys.
bool MigrateKeys(const std::vector<std::string_view>& argv, std::vector<KeyRef>* out) {
  const uint32_t flags = kKeyRW | kKeyAccess | kKeyDelete;
  size_t first = 3, num = 1;
  for (size_t i = 6; i < argv.size(); i++) {
    if (base::EqualsNoCase(argv[i], "keys")) {
      first = i + 1;
      num = argv[3].empty() ? argv.size() - first : 0;
      break;
    }
    if (base::EqualsNoCase(argv[i], "auth"))
      i += 1;
    else if (base::EqualsNoCase(argv[i], "auth2"))
      i += 2;
  }
  for (size_t i = 0; i < num; i++) out->push_back({static_cast<int>(first + i), flags});
  return true;
}

// BITFIELD only reads its key when every operation is a GET (Valkey's variable flags); a
// syntax error counts as a write, the safe side.
bool BitfieldKeys(const std::vector<std::string_view>& argv, std::vector<KeyRef>* out) {
  bool readonly = true;
  for (size_t i = 2; i < argv.size() && readonly; i++) {
    size_t rem = argv.size() - i - 1;
    if (base::EqualsNoCase(argv[i], "get") && rem >= 2)
      i += 2;
    else if (base::EqualsNoCase(argv[i], "overflow") && rem >= 1)
      i += 1;
    else
      readonly = false;  // SET, INCRBY, or a syntax error
  }
  out->push_back({1, readonly ? kKeyRO | kKeyAccess : kKeyRW | kKeyAccess | kKeyUpdate});
  return true;
}

// SORT reads argv[1] and, with STORE, writes the key after the last STORE; the values of
// LIMIT, GET and BY are skipped, so a pattern spelled "store" is no keyword.
bool SortKeys(const std::vector<std::string_view>& argv, std::vector<KeyRef>* out) {
  out->push_back({1, kKeyRO | kKeyAccess});
  int store = -1;
  for (size_t j = 2; j < argv.size(); j++) {
    if (base::EqualsNoCase(argv[j], "limit"))
      j += 2;
    else if (base::EqualsNoCase(argv[j], "get") || base::EqualsNoCase(argv[j], "by"))
      j += 1;
    else if (base::EqualsNoCase(argv[j], "store") && j + 1 < argv.size())
      store = static_cast<int>(++j);
  }
  if (store > 0) out->push_back({store, kKeyOW | kKeyUpdate});
  return true;
}

bool SortRoKeys(const std::vector<std::string_view>&, std::vector<KeyRef>* out) {
  out->push_back({1, kKeyRO | kKeyAccess});
  return true;
}

struct ProcEntry {
  const char* fullname;
  KeysProc proc;
};
const ProcEntry kKeyProcs[] = {
    {"set", SetKeys},   {"migrate", MigrateKeys}, {"bitfield", BitfieldKeys},
    {"sort", SortKeys}, {"sort_ro", SortRoKeys}};

}  // namespace

void AttachKeySpecs(CommandSpec* cmd) {
  cmd->key_specs.clear();
  cmd->keys_proc = nullptr;
  for (auto& e : SpecTable())
    if (cmd->fullname == e.fullname) cmd->key_specs = e.specs;
  for (auto& e : kKeyProcs)
    if (cmd->fullname == e.fullname) cmd->keys_proc = e.proc;
  LegacyKeys l = DeriveLegacyKeys(cmd->key_specs);
  cmd->first_key = l.first;
  cmd->last_key = l.last;
  cmd->step = l.step;
  if (l.movable)
    cmd->flags |= kCmdMovableKeys;
  else
    cmd->flags &= ~kCmdMovableKeys;
}

bool FindKeys(const CommandSpec* cmd, const std::vector<std::string_view>& argv,
              std::vector<KeyRef>* out, bool with_channels) {
  out->clear();
  bool usable = with_channels ? !cmd->key_specs.empty() : HasRealKeySpec(cmd);
  if (usable && !(AllSpecFlags(cmd) & kKeyVariableFlags)) {
    bool ok = true;
    for (auto& s : cmd->key_specs) {
      if ((s.flags & kKeyNotKey) && !with_channels) continue;
      if (!SpecKeys(cmd, s, argv, out)) {
        ok = false;
        break;
      }
    }
    if (ok) return true;
    out->clear();
  }
  if (cmd->keys_proc) return cmd->keys_proc(argv, out);
  return false;
}

bool CommandHasKeys(const CommandSpec* cmd) { return cmd->keys_proc || HasRealKeySpec(cmd); }

LegacyKeys DeriveLegacyKeys(const std::vector<KeySpec>& specs) {
  LegacyKeys r;
  if (specs.empty()) return r;
  auto plain = [](const KeySpec& s) {
    return s.begin == KeySpec::kIndex && s.find == KeySpec::kRange;
  };
  if (specs.size() == 1 && plain(specs[0])) {
    r.first = specs[0].index;
    r.last = specs[0].lastkey >= 0 ? specs[0].lastkey + r.first : specs[0].lastkey;
    r.step = specs[0].keystep;
    r.movable = specs[0].flags & kKeyIncomplete;
    return r;
  }
  // Several specs: the union of consecutive plain ranges with step 1; anything else makes
  // the keys movable (not described by the triple).
  int firstkey = INT_MAX;
  unsigned lastkey = 0, prev_last = 0;  // unsigned: a negative (from the end) is the largest
  for (auto& s : specs) {
    if (!plain(s) || s.keystep != 1 ||
        (prev_last && prev_last != static_cast<unsigned>(s.index - 1))) {
      r.movable = true;
      continue;
    }
    if (s.flags & kKeyIncomplete) r.movable = true;
    firstkey = std::min(firstkey, s.index);
    int abs_last = s.lastkey >= 0 ? s.lastkey + s.index : s.lastkey;
    lastkey = std::max(lastkey, static_cast<unsigned>(abs_last));
    prev_last = lastkey;
  }
  if (firstkey == INT_MAX) {
    r.movable = true;
    return r;
  }
  r.first = firstkey;
  r.last = static_cast<int>(lastkey);
  r.step = 1;
  return r;
}

void KeyFlagNames(uint32_t flags, std::vector<const char*>* out) {
  static const char* const kNames[] = {
      "RO",     "RW",     "OW",      "RM",         "access",        "update",
      "insert", "delete", "not_key", "incomplete", "variable_flags"};
  for (int i = 0; i < 11; i++)
    if (flags & (1u << i)) out->push_back(kNames[i]);
}

}  // namespace server
