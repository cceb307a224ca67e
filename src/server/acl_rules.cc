// ACL rules: what each ACL SETUSER modifier does to a user and its selectors, how a user is
// described back (ACL LIST, GETUSER, the ACL file), and the permission check itself. Pure
// functions of a user and the command table; the users themselves live in acl.cc.
#include <algorithm>
#include <cstring>

#include "base/glob.h"
#include "base/sha256.h"
#include "base/util.h"
#include "server/acl.h"
#include "server/command.h"
#include "server/config.h"

namespace server::acl {

const char* const kCategoryNames[kNumCategories] = {
    "keyspace", "read",  "write", "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo", "stream",  "pubsub",      "admin",
    "fast",     "slow",  "blocking", "dangerous", "connection", "transaction", "scripting"};

namespace {

struct CategoryEntry {
  const char* name;
  uint32_t cats;
};
const CategoryEntry kCommandCategories[] = {
#include "server/command_acl.inc"
};

// Categories of a command Valkey does not have, from its flags and group.
uint32_t DerivedCategories(const CommandSpec* cmd) {
  uint32_t c = 0;
  if (cmd->flags & kCmdWrite) c |= kAclWrite;
  if (cmd->flags & kCmdReadonly) c |= kAclRead;
  std::string_view g = cmd->group ? cmd->group : "";
  if (g == "string") c |= kAclString;
  if (g == "generic") c |= kAclKeyspace;
  if (g == "hash") c |= kAclHash;
  if (g == "list") c |= kAclList;
  if (g == "set") c |= kAclSet;
  if (g == "sorted_set") c |= kAclSortedset;
  if (g == "connection") c |= kAclConnection;
  if (g == "transactions") c |= kAclTransaction;
  if (g == "pubsub") c |= kAclPubsub;
  if (cmd->flags & kCmdAdmin) c |= kAclAdmin | kAclDangerous;
  c |= (cmd->flags & kCmdFast) ? kAclFast : kAclSlow;
  if (cmd->flags & kCmdBlocking) c |= kAclBlocking;
  return c;
}

constexpr const char* kErrUnknown = "Unknown command or category name in ACL";
constexpr const char* kErrSyntax = "Syntax error";
constexpr const char* kErrKeysAfterAll =
    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not "
    "have any effect. Try 'resetkeys' to start with an empty list of patterns";
constexpr const char* kErrChannelsAfterAll =
    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does "
    "not have any effect. Try 'resetchannels' to start with an empty list of channels";
constexpr const char* kErrNoSuchPass =
    "The password you are trying to remove from the user does not exist";
constexpr const char* kErrBadHash =
    "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "
    "characters";

int CategoryByName(std::string_view name) {
  for (int i = 0; i < kNumCategories; i++)
    if (base::EqualsNoCase(name, kCategoryNames[i])) return i;
  return -1;
}

size_t BitmapWords() { return (CommandsByAclId().size() + 63) / 64; }

void SetBit(Selector* s, int id, bool on) {
  if (s->allowed.size() < BitmapWords()) s->allowed.resize(BitmapWords(), 0);
  uint64_t m = uint64_t{1} << (id & 63);
  if (on)
    s->allowed[id >> 6] |= m;
  else
    s->allowed[id >> 6] &= ~m;
}

bool GetBit(const Selector& s, int id) {
  size_t w = static_cast<size_t>(id) >> 6;
  return w < s.allowed.size() && (s.allowed[w] >> (id & 63)) & 1;
}

// A command and its subcommands, with their first-arg rules gone.
void SetCommand(Selector* s, const CommandSpec* cmd, bool on) {
  SetBit(s, cmd->acl_id, on);
  for (auto& sub : cmd->subcommands) SetBit(s, sub.acl_id, on);
  s->firstargs.erase(cmd->acl_id);
}

// Keeps the rules short: a rule replaces earlier ones about the same thing (a command rule
// also those about its subcommands and first args).
void AddRule(Selector* s, char sign, std::string_view body, bool whole_command) {
  auto same = [&](const std::string& r) {
    std::string_view b = std::string_view(r).substr(1);
    if (b == body) return true;
    return whole_command && b.size() > body.size() && b.substr(0, body.size()) == body &&
           b[body.size()] == '|';
  };
  s->rules.erase(std::remove_if(s->rules.begin(), s->rules.end(), same), s->rules.end());
  s->rules.push_back(std::string(1, sign) + std::string(body));
}

bool CommandRule(Selector* s, std::string_view op, std::string* err) {
  bool allow = op[0] == '+';
  std::string_view body = op.substr(1);
  if (!body.empty() && body[0] == '@') {
    std::string_view cat = body.substr(1);
    if (base::EqualsNoCase(cat, "all")) {
      s->allcommands = allow;
      s->allowed.assign(BitmapWords(), allow ? ~uint64_t{0} : 0);
      s->firstargs.clear();
      s->rules.clear();
      return true;
    }
    int ci = CategoryByName(cat);
    if (ci < 0) {
      *err = kErrUnknown;
      return false;
    }
    for (const CommandSpec* c : CommandsByAclId())
      if (c->acl_categories & (1u << ci)) {
        SetBit(s, c->acl_id, allow);
        s->firstargs.erase((c->parent ? c->parent : c)->acl_id);
      }
    AddRule(s, op[0], std::string("@") + kCategoryNames[ci], false);
    return true;
  }
  size_t bar = body.find('|');
  const CommandSpec* cmd = LookupCommand(body.substr(0, bar));
  if (!cmd || cmd->parent) {
    *err = kErrUnknown;
    return false;
  }
  if (bar == std::string_view::npos) {
    SetCommand(s, cmd, allow);
    AddRule(s, op[0], cmd->fullname, true);
    return true;
  }
  std::string_view sub = body.substr(bar + 1);
  if (!cmd->subcommands.empty()) {
    const CommandSpec* sc = nullptr;
    for (auto& x : cmd->subcommands)
      if (base::EqualsNoCase(x.name, sub)) sc = &x;
    if (!sc) {
      *err = sub.find('|') != std::string_view::npos
                 ? "Allowing first-arg of a subcommand is not supported"
                 : kErrUnknown;
      // A known subcommand followed by more is the first-arg case.
      size_t bar2 = sub.find('|');
      if (bar2 != std::string_view::npos) {
        bool known = false;
        for (auto& x : cmd->subcommands)
          if (base::EqualsNoCase(x.name, sub.substr(0, bar2))) known = true;
        if (!known) *err = kErrUnknown;
      }
      return false;
    }
    SetBit(s, sc->acl_id, allow);
    AddRule(s, op[0], sc->fullname, false);
    return true;
  }
  // A command without subcommands: +cmd|arg allows that first argument only. Valkey 8 splits
  // at the last '|', so get|a|b names a subcommand get|a, which does not exist.
  if (sub.find('|') != std::string_view::npos) {
    *err = kErrUnknown;
    return false;
  }
  if (!allow || sub.empty()) {
    *err = allow ? kErrSyntax : kErrUnknown;
    return false;
  }
  if (!GetBit(*s, cmd->acl_id)) {
    auto& v = s->firstargs[cmd->acl_id];
    std::string a = base::ToLower(sub);
    if (std::find(v.begin(), v.end(), a) == v.end()) v.push_back(a);
  }
  AddRule(s, '+', std::string(cmd->fullname) + "|" + base::ToLower(sub), false);
  return true;
}

bool KeyRule(Selector* s, std::string_view op, std::string* err) {
  uint8_t perm = kPermAll;
  std::string_view pat;
  if (op[0] == '~') {
    pat = op.substr(1);
  } else {  // %R~, %W~, %RW~
    size_t i = 1;
    perm = 0;
    for (; i < op.size() && op[i] != '~'; i++) {
      char ch = static_cast<char>(toupper(static_cast<unsigned char>(op[i])));
      if (ch == 'R')
        perm |= kPermRead;
      else if (ch == 'W')
        perm |= kPermWrite;
      else
        break;
    }
    if (!perm || i >= op.size() || op[i] != '~') {
      *err = kErrSyntax;
      return false;
    }
    pat = op.substr(i + 1);
  }
  if (s->allkeys) {
    *err = kErrKeysAfterAll;
    return false;
  }
  if (pat == "*" && perm == kPermAll) {
    s->allkeys = true;
    s->keys.clear();
    return true;
  }
  for (auto& k : s->keys)
    if (k.pattern == pat) {
      k.perm |= perm;
      return true;
    }
  s->keys.push_back({std::string(pat), perm});
  return true;
}

bool ChannelRule(Selector* s, std::string_view pat, std::string* err) {
  if (s->allchannels) {
    *err = kErrChannelsAfterAll;
    return false;
  }
  if (pat == "*") {
    s->allchannels = true;
    s->channels.clear();
    return true;
  }
  if (std::find(s->channels.begin(), s->channels.end(), pat) == s->channels.end())
    s->channels.emplace_back(pat);
  return true;
}

Selector NewSelector() {
  Selector s;
  s.allowed.assign(BitmapWords(), 0);
  s.allchannels = cfg.acl_pubsub_default == 0;
  return s;
}

// The modifiers a selector takes; false with *handled unset when op is not one of them.
bool SelectorRule(Selector* s, std::string_view op, bool* handled, std::string* err) {
  *handled = true;
  if (base::EqualsNoCase(op, "allkeys")) {  // unlike "~*", fine when already there
    s->allkeys = true;
    s->keys.clear();
    return true;
  }
  if (base::EqualsNoCase(op, "resetkeys")) {
    s->allkeys = false;
    s->keys.clear();
    return true;
  }
  if (base::EqualsNoCase(op, "allchannels")) {
    s->allchannels = true;
    s->channels.clear();
    return true;
  }
  if (base::EqualsNoCase(op, "resetchannels")) {
    s->allchannels = false;
    s->channels.clear();
    return true;
  }
  if (base::EqualsNoCase(op, "allcommands")) return CommandRule(s, "+@all", err);
  if (base::EqualsNoCase(op, "nocommands")) return CommandRule(s, "-@all", err);
  if (!op.empty() && (op[0] == '~' || op[0] == '%')) return KeyRule(s, op, err);
  if (!op.empty() && op[0] == '&') return ChannelRule(s, op.substr(1), err);
  if (!op.empty() && (op[0] == '+' || op[0] == '-')) return CommandRule(s, op, err);
  *handled = false;
  return false;
}

bool ValidHash(std::string_view h) {
  if (h.size() != 64) return false;
  for (char ch : h)
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  return true;
}

// Splits a selector's text on blanks (quotes are not special inside a selector).
std::vector<std::string_view> SplitBlanks(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && isspace(static_cast<unsigned char>(s[i]))) i++;
    size_t j = i;
    while (j < s.size() && !isspace(static_cast<unsigned char>(s[j]))) j++;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool UserRule(User* u, std::string_view op, std::string* err) {
  if (base::EqualsNoCase(op, "on")) {
    u->enabled = true;
  } else if (base::EqualsNoCase(op, "off")) {
    u->enabled = false;
  } else if (base::EqualsNoCase(op, "skip-sanitize-payload")) {
    u->skip_sanitize_payload = true;
  } else if (base::EqualsNoCase(op, "sanitize-payload")) {
    u->skip_sanitize_payload = false;
  } else if (base::EqualsNoCase(op, "nopass")) {
    u->nopass = true;
    u->passwords.clear();
  } else if (base::EqualsNoCase(op, "resetpass")) {
    u->nopass = false;
    u->passwords.clear();
  } else if (!op.empty() && (op[0] == '>' || op[0] == '#')) {
    std::string h;
    if (op[0] == '>') {
      h = base::Sha256Hex(op.substr(1));
    } else {
      if (!ValidHash(op.substr(1))) {
        *err = kErrBadHash;
        return false;
      }
      h = std::string(op.substr(1));
    }
    if (std::find(u->passwords.begin(), u->passwords.end(), h) == u->passwords.end())
      u->passwords.push_back(h);
    u->nopass = false;
  } else if (!op.empty() && (op[0] == '<' || op[0] == '!')) {
    std::string h;
    if (op[0] == '<') {
      h = base::Sha256Hex(op.substr(1));
    } else {
      if (!ValidHash(op.substr(1))) {
        *err = kErrBadHash;
        return false;
      }
      h = std::string(op.substr(1));
    }
    auto it = std::find(u->passwords.begin(), u->passwords.end(), h);
    if (it == u->passwords.end()) {
      *err = kErrNoSuchPass;
      return false;
    }
    u->passwords.erase(it);
  } else if (base::EqualsNoCase(op, "clearselectors")) {
    u->selectors.resize(1);
  } else if (base::EqualsNoCase(op, "reset")) {
    u->passwords.clear();
    u->nopass = false;
    u->enabled = false;
    u->skip_sanitize_payload = false;
    u->selectors.assign(1, NewSelector());
  } else if (op.size() >= 2 && op.front() == '(' && op.back() == ')') {
    Selector s = NewSelector();
    for (std::string_view r : SplitBlanks(op.substr(1, op.size() - 2))) {
      bool handled;
      if (!SelectorRule(&s, r, &handled, err)) {
        if (!handled) *err = kErrSyntax;
        return false;
      }
    }
    u->selectors.push_back(std::move(s));
  } else {
    bool handled;
    if (!SelectorRule(&u->selectors[0], op, &handled, err)) {
      if (!handled) *err = kErrSyntax;
      return false;
    }
  }
  return true;
}

bool RootUnrestricted(const User& u) {
  const Selector& s = u.selectors[0];
  if (!s.allkeys || !s.allchannels) return false;
  for (const CommandSpec* c : CommandsByAclId())
    if (!GetBit(s, c->acl_id)) return false;
  return true;
}

bool CommandAllowed(const Selector& s, const CommandSpec* cmd,
                    const std::vector<std::string_view>& argv) {
  if (GetBit(s, cmd->acl_id)) return true;
  if (cmd->parent || argv.size() < 2 || s.firstargs.empty()) return false;
  auto it = s.firstargs.find(cmd->acl_id);
  if (it == s.firstargs.end()) return false;
  for (auto& a : it->second)
    if (base::EqualsNoCase(a, argv[1])) return true;
  return false;
}

bool KeyAllowed(const Selector& s, std::string_view key, uint32_t key_flags) {
  if (s.allkeys) return true;
  uint8_t need = 0;
  if (key_flags & kKeyAccess) need |= kPermRead;
  if (key_flags & (kKeyInsert | kKeyDelete | kKeyUpdate)) need |= kPermWrite;
  for (auto& k : s.keys)
    if ((k.perm & need) == need && base::GlobMatch(k.pattern, key)) return true;
  return false;
}

bool ChannelAllowedIn(const Selector& s, std::string_view ch, bool pattern) {
  if (s.allchannels) return true;
  for (auto& p : s.channels)
    if (pattern ? p == ch : base::GlobMatch(p, ch)) return true;
  return false;
}

// The channels a command names (not those it leaves: unsubscribing is always allowed).
struct ChannelArgs {
  int first = 0, last = 0;  // argv positions, inclusive; last < 0 counts from the end
  bool pattern = false;
};
bool CommandChannels(const CommandSpec* cmd, ChannelArgs* out) {
  std::string_view n = cmd->fullname;
  if (n == "publish" || n == "spublish") {
    *out = {1, 1, false};
    return true;
  }
  if (n == "subscribe" || n == "ssubscribe") {
    *out = {1, -1, false};
    return true;
  }
  if (n == "psubscribe") {
    *out = {1, -1, true};
    return true;
  }
  return false;
}

Verdict CheckSelector(const Selector& s, const CommandSpec* cmd,
                      const std::vector<std::string_view>& argv, int* pos) {
  *pos = 0;
  if (!CommandAllowed(s, cmd, argv)) return Verdict::kDeniedCmd;
  if (!s.allkeys && CommandHasKeys(cmd)) {
    std::vector<KeyRef> keys;
    FindKeys(cmd, argv, &keys);
    for (auto& k : keys)
      if (!KeyAllowed(s, argv[k.pos], k.flags)) {
        *pos = k.pos;
        return Verdict::kDeniedKey;
      }
  }
  ChannelArgs ch;
  if (!s.allchannels && CommandChannels(cmd, &ch)) {
    int last = ch.last < 0 ? static_cast<int>(argv.size()) + ch.last : ch.last;
    for (int i = ch.first; i <= last && i < static_cast<int>(argv.size()); i++)
      if (!ChannelAllowedIn(s, argv[i], ch.pattern)) {
        *pos = i;
        return Verdict::kDeniedChannel;
      }
  }
  return Verdict::kOk;
}

std::string DescribeSelector(const Selector& s) {
  std::string out = DescribeKeys(s);
  std::string ch = s.allchannels ? "&*" : "resetchannels";
  if (!s.allchannels && !s.channels.empty()) ch += " " + DescribeChannels(s);
  if (!out.empty()) out += " ";
  out += ch + " " + DescribeCommands(s);
  return out;
}

}  // namespace

uint32_t CategoriesOf(const CommandSpec* cmd) {
  static const std::unordered_map<std::string_view, uint32_t> table = [] {
    std::unordered_map<std::string_view, uint32_t> m;
    for (auto& e : kCommandCategories) m[e.name] = e.cats;
    return m;
  }();
  auto it = table.find(cmd->fullname);
  return it != table.end() ? it->second : DerivedCategories(cmd);
}

User NewUser(std::string_view name) {
  User u;
  u.name = std::string(name);
  u.selectors.push_back(NewSelector());
  return u;
}

bool ValidUserName(std::string_view name) {
  for (char ch : name)
    if (isspace(static_cast<unsigned char>(ch)) || ch == '\0') return false;
  return true;
}

bool ApplyRules(User* u, const std::vector<std::string_view>& args, std::string* err,
                std::string* reason) {
  std::string joined;
  for (size_t i = 0; i < args.size(); i++) {
    std::string_view op = args[i];
    if (!op.empty() && op[0] == '(' && op.back() != ')') {
      // A selector written over several arguments: join them up to the closing one.
      joined = std::string(op);
      size_t j = i + 1;
      for (; j < args.size(); j++) {
        joined += " ";
        joined += args[j];
        if (!args[j].empty() && args[j].back() == ')') break;
      }
      if (j >= args.size()) {
        *err = "Unmatched parenthesis in acl selector starting at '" + std::string(op) + "'.";
        if (reason) *reason = *err;
        return false;
      }
      op = joined;
      i = j;
    }
    std::string why;
    if (!UserRule(u, op, &why)) {
      *err = "Error in ACL SETUSER modifier '" + std::string(op) + "': " + why;
      if (reason) *reason = "Error in applying operation '" + std::string(op) + "': " + why;
      return false;
    }
  }
  u->unrestricted = RootUnrestricted(*u);
  return true;
}

std::string DescribeKeys(const Selector& s) {
  if (s.allkeys) return "~*";
  std::string out;
  for (auto& k : s.keys) {
    if (!out.empty()) out += " ";
    out += k.perm == kPermAll ? "~" : k.perm == kPermRead ? "%R~" : "%W~";
    out += k.pattern;
  }
  return out;
}

std::string DescribeChannels(const Selector& s) {
  if (s.allchannels) return "&*";
  std::string out;
  for (auto& c : s.channels) {
    if (!out.empty()) out += " ";
    out += "&" + c;
  }
  return out;
}

std::string DescribeCommands(const Selector& s) {
  std::string out = s.allcommands ? "+@all" : "-@all";
  for (auto& r : s.rules) out += " " + r;
  return out;
}

std::string DescribeUser(const User& u) {
  std::string out = "user " + u.name + (u.enabled ? " on" : " off");
  if (u.nopass) out += " nopass";
  out += u.skip_sanitize_payload ? " skip-sanitize-payload" : " sanitize-payload";
  for (auto& p : u.passwords) out += " #" + p;
  out += " " + DescribeSelector(u.selectors[0]);
  for (size_t i = 1; i < u.selectors.size(); i++)
    out += " (" + DescribeSelector(u.selectors[i]) + ")";
  return out;
}

Verdict Check(const User& u, const CommandSpec* cmd, const std::vector<std::string_view>& argv,
              int* pos) {
  if (u.unrestricted) return Verdict::kOk;
  Verdict worst = Verdict::kDeniedCmd;
  *pos = 0;
  for (auto& s : u.selectors) {
    int p;
    Verdict v = CheckSelector(s, cmd, argv, &p);
    if (v == Verdict::kOk) return v;
    if (v > worst || (v == worst && p > *pos)) {
      worst = v;
      *pos = p;
    }
  }
  return worst;
}

bool HasUnrestrictedKeyAccess(const User& u, const CommandSpec* cmd,
                              const std::vector<std::string_view>& argv, uint8_t perm) {
  if (u.unrestricted) return true;
  for (auto& s : u.selectors) {
    if (!CommandAllowed(s, cmd, argv)) continue;
    if (s.allkeys) return true;
    for (auto& k : s.keys)
      if (k.pattern == "*" && (k.perm & perm) == perm) return true;
  }
  return false;
}

bool ChannelAllowed(const User& u, std::string_view channel, bool pattern) {
  for (auto& s : u.selectors)
    if (ChannelAllowedIn(s, channel, pattern)) return true;
  return false;
}

}  // namespace server::acl
