// Command table construction, lookup and shared argument helpers.
#include "server/command.h"

#include "server/observe.h"
#include "server/acl.h"

#include <algorithm>
#include <memory>

#include "base/util.h"
#include "server/cluster_hooks.h"
#include "server/repl_hooks.h"

namespace server {
namespace {
std::vector<CommandSpec>& Storage() {
  static std::vector<CommandSpec> t;
  return t;
}
// Command names, case-folded, in open-addressing tables: every request looks one up, and
// hashing while folding case avoids building a std::string per command. Two tables: the names
// clients use (rename-command edits it) and the real names (the primary link and propagation
// always speak real names).
constexpr size_t kIndexSize = 1024;  // power of two, well above twice the command count
struct Slot {
  std::string_view key;  // lower case; points at fullname or at a RenamedNames() entry
  CommandSpec* cmd = nullptr;
};
using NameIndex = std::vector<Slot>;
NameIndex& Index() {
  static NameIndex slots(kIndexSize);
  return slots;
}
NameIndex& RealIndex() {
  static NameIndex slots(kIndexSize);
  return slots;
}
std::vector<std::unique_ptr<std::string>>& RenamedNames() {
  static std::vector<std::unique_ptr<std::string>> v;
  return v;
}
bool g_renamed = false;

// FNV-1a over the lower-cased name; writes the folded name to out (size >= name.size()).
uint32_t FoldAndHash(std::string_view name, char* out) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < name.size(); i++) {
    char ch = name[i];
    ch = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch + 32) : ch;
    out[i] = ch;
    h = (h ^ static_cast<uint8_t>(ch)) * 16777619u;
  }
  return h;
}

void IndexAdd(NameIndex& slots, std::string_view key, CommandSpec* c) {
  std::string folded(key.size(), 0);
  uint32_t h = FoldAndHash(key, folded.data());
  for (size_t i = h & (kIndexSize - 1);; i = (i + 1) & (kIndexSize - 1)) {
    if (!slots[i].cmd || slots[i].key == folded) {
      slots[i] = {key, c};
      return;
    }
  }
}

CommandSpec* IndexFind(const NameIndex& slots, std::string_view name) {
  char buf[64];
  if (name.size() >= sizeof(buf)) return nullptr;
  uint32_t h = FoldAndHash(name, buf);
  std::string_view folded(buf, name.size());
  for (size_t i = h & (kIndexSize - 1); slots[i].cmd; i = (i + 1) & (kIndexSize - 1))
    if (slots[i].key == folded) return slots[i].cmd;
  return nullptr;
}

std::vector<CommandSpec*>& Sorted() {
  static std::vector<CommandSpec*> v;
  return v;
}
std::vector<const CommandSpec*>& ById() {
  static std::vector<const CommandSpec*> v;
  return v;
}
}  // namespace

void BuildCommandTable() {
  auto& t = Storage();
  t.reserve(512);
  RegisterStringCommands(&t);
  RegisterBitmapCommands(&t);
  RegisterHyperLogLogCommands(&t);
  RegisterKeyCommands(&t);
  RegisterServerCommands(&t);
  RegisterLolwutCommands(&t);
  RegisterConnectionCommands(&t);
  RegisterTransactionCommands(&t);
  RegisterPubsubCommands(&t);
  RegisterHashCommands(&t);
  RegisterSetCommands(&t);
  RegisterListCommands(&t);
  RegisterZSetCommands(&t);
  RegisterGeoCommands(&t);
  RegisterStreamCommands(&t);
  Repl().register_commands(&t);
  Cluster().register_commands(&t);
  RegisterPersistenceCommands(&t);
  RegisterMigrateCommands(&t);
  RegisterUnsupportedCommands(&t);
  RegisterObserveCommands(&t);
  RegisterSortCommands(&t);
  RegisterAclCommands(&t);
  for (auto& c : t) {
    c.fullname = c.name;
    AttachKeySpecs(&c);
    for (auto& s : c.subcommands) {
      s.parent = &c;
      s.fullname = std::string(c.name) + "|" + s.name;
      if (!s.group) s.group = c.group;
      if (!s.since) s.since = c.since;
      AttachKeySpecs(&s);
    }
    IndexAdd(Index(), c.fullname, &c);
    IndexAdd(RealIndex(), c.fullname, &c);
    Sorted().push_back(&c);
  }
  for (auto& c : t) {
    c.acl_id = static_cast<int>(ById().size());
    c.acl_categories = acl::CategoriesOf(&c);
    ById().push_back(&c);
    for (auto& s : c.subcommands) {
      s.acl_id = static_cast<int>(ById().size());
      s.acl_categories = acl::CategoriesOf(&s);
      ById().push_back(&s);
    }
  }
  std::sort(Sorted().begin(), Sorted().end(),
            [](const CommandSpec* a, const CommandSpec* b) { return a->fullname < b->fullname; });
}

const CommandSpec* LookupCommand(std::string_view name) { return IndexFind(Index(), name); }

const CommandSpec* LookupRealCommand(std::string_view name) { return IndexFind(RealIndex(), name); }

bool CommandsRenamed() { return g_renamed; }

bool RenameInCommandTable(std::string_view from, std::string_view to, std::string* err) {
  CommandSpec* cmd = IndexFind(Index(), from);
  if (!cmd) {
    *err = "No such command in rename-command";
    return false;
  }
  // Rebuild the client-facing index without `from` (open addressing has no cheap delete).
  std::vector<Slot> keep;
  for (auto& s : Index())
    if (s.cmd && s.cmd != cmd) keep.push_back(s);
  if (!to.empty()) {
    if (IndexFind(Index(), to) && IndexFind(Index(), to) != cmd) {
      *err = "Target command name already exists";
      return false;
    }
    std::string lower(to);
    for (auto& ch : lower) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
    RenamedNames().push_back(std::make_unique<std::string>(std::move(lower)));
    keep.push_back({*RenamedNames().back(), cmd});
  } else {
    auto& v = Sorted();
    v.erase(std::remove(v.begin(), v.end(), cmd), v.end());
  }
  Index().assign(kIndexSize, Slot{});
  for (auto& s : keep) IndexAdd(Index(), s.key, s.cmd);
  g_renamed = true;
  return true;
}

const CommandSpec* LookupCommandArgv(const std::vector<std::string_view>& argv) {
  const CommandSpec* c = LookupCommand(argv[0]);
  if (!c || c->subcommands.empty() || argv.size() < 2) return c;
  for (auto& s : c->subcommands)
    if (base::EqualsNoCase(argv[1], s.name)) return &s;
  return nullptr;
}

const std::vector<CommandSpec*>& AllCommands() { return Sorted(); }

const std::vector<const CommandSpec*>& CommandsByAclId() { return ById(); }

std::string FlagNames(uint32_t flags, std::vector<std::string>* out) {
  static const std::pair<uint32_t, const char*> kNames[] = {
      {kCmdWrite, "write"},
      {kCmdReadonly, "readonly"},
      {kCmdDenyOom, "denyoom"},
      {kCmdAdmin, "admin"},
      {kCmdPubsub, "pubsub"},
      {kCmdNoScript, "noscript"},
      {kCmdBlocking, "blocking"},
      {kCmdLoading, "loading"},
      {kCmdStale, "stale"},
      {kCmdSkipMonitor, "skip_monitor"},
      {kCmdSkipSlowlog, "skip_slowlog"},
      {kCmdAsking, "asking"},
      {kCmdFast, "fast"},
      {kCmdNoAuth, "no_auth"},
      // may_replicate is hidden, as Valkey 8 hides it.
      {kCmdNoMandatoryKeys, "no_mandatory_keys"},
      {kCmdNoAsyncLoading, "no_async_loading"},
      {kCmdNoMulti, "no_multi"},
      {kCmdMovableKeys, "movablekeys"},
      {kCmdAllowBusy, "allow_busy"},
  };
  for (auto& [bit, name] : kNames)
    if (flags & bit) out->push_back(name);
  return "";
}

void AclCategories(const CommandSpec* cmd, std::vector<std::string>* out) {
  for (int i = 0; i < acl::kNumCategories; i++)
    if (cmd->acl_categories & (1u << i)) out->push_back(std::string("@") + acl::kCategoryNames[i]);
}

void CommandStats::Record(uint64_t us) {
  recorded++;
  if (us == 0) us = 1;
  int lg = 63 - __builtin_clzll(us);
  // Position within [2^lg, 2^(lg+1)) in quarters.
  int quarter = lg >= 2 ? static_cast<int>((us >> (lg - 2)) & 3) : 0;
  int b = lg * 4 + quarter;
  latency[b < kBuckets ? b : kBuckets - 1]++;
}

double CommandStats::Percentile(double p) const {
  uint64_t total = 0;
  for (uint32_t v : latency) total += v;
  if (!total) return 0;
  uint64_t want = static_cast<uint64_t>(p / 100.0 * total + 0.999999);
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; b++) {
    seen += latency[b];
    if (seen >= want) {
      int lg = b / 4, q = b % 4;
      double lo = static_cast<double>(1ULL << lg);
      return lo + lo * (q + 1) / 4.0;
    }
  }
  return 0;
}

bool ArgInt(Client* c, std::string_view s, int64_t* out, const char* err) {
  if (base::ParseInt64(s, out)) return true;
  c->R().Error(err);
  return false;
}

bool ArgDouble(Client* c, std::string_view s, double* out) {
  if (base::ParseDouble(s, out)) return true;
  c->R().Error(kErrNotFloat);
  return false;
}

bool ArgLongDouble(Client* c, std::string_view s, long double* out) {
  if (base::ParseLongDouble(s, out)) return true;
  c->R().Error(kErrNotFloat);
  return false;
}

std::string ArityText(const CommandSpec* cmd) {
  return "wrong number of arguments for '" + cmd->fullname + "' command";
}

std::string UnknownSubcommandText(std::string_view sub, std::string_view cmd) {
  std::string up(cmd);
  for (auto& ch : up) ch = toupper(static_cast<unsigned char>(ch));
  return "unknown subcommand '" + std::string(sub.substr(0, 128)) + "'. Try " + up + " HELP.";
}

void ReplyArity(Client* c, const CommandSpec* cmd) { c->R().Error(ArityText(cmd)); }

void ReplyUnknownSubcommand(Client* c, std::string_view sub, std::string_view cmd) {
  c->R().Error(UnknownSubcommandText(sub, cmd));
}

void ReplyHelp(Client* c, std::string_view cmd, const std::vector<const char*>& lines) {
  std::string up(cmd);
  for (auto& ch : up) ch = toupper(static_cast<unsigned char>(ch));
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(lines.size()) + 3);
  r.Simple(up + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
  for (auto* l : lines) r.Simple(l);
  r.Simple("HELP");
  r.Simple("    Print this help.");
}

}  // namespace server
