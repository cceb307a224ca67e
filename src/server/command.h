// The command table: one declarative entry per command (and per subcommand).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/client.h"
#include "server/command_keys.h"

namespace server {

using Handler = void (*)(Client* c);

enum CmdFlag : uint32_t {
  kCmdWrite = 1 << 0,
  kCmdReadonly = 1 << 1,
  kCmdAdmin = 1 << 2,
  kCmdFast = 1 << 3,
  kCmdDenyOom = 1 << 4,
  kCmdNoScript = 1 << 5,
  kCmdLoading = 1 << 6,
  kCmdStale = 1 << 7,
  kCmdNoAuth = 1 << 8,
  kCmdNoMulti = 1 << 9,
  kCmdPubsub = 1 << 10,
  kCmdBlocking = 1 << 11,
  kCmdMayReplicate = 1 << 12,
  kCmdSkipMonitor = 1 << 13,
  kCmdSkipSlowlog = 1 << 14,
  kCmdAllowBusy = 1 << 15,
  kCmdNoMandatoryKeys = 1 << 16,
  kCmdMovableKeys = 1 << 17,
  kCmdSentinel = 1 << 18,
  kCmdAsking = 1 << 19,
  kCmdNoAsyncLoading = 1 << 20,  // refused (-LOADING) while a swapdb replica loads beside its data
};

struct CommandStats {
  uint64_t calls = 0, usec = 0, rejected = 0, failed = 0;
  uint64_t recorded = 0;  // latencies in the histogram (none while latency-tracking is off)
  // Latency histogram: 4 buckets per power of two of microseconds (INFO latencystats).
  static constexpr int kBuckets = 4 * 40;
  uint32_t latency[kBuckets] = {};
  void Record(uint64_t us);
  // A call completed in `us` (all its runs, for one that blocked), failed or not; its latency
  // goes to the histogram when tracked (latency-tracking).
  void Completed(uint64_t us, bool with_error, bool track_latency) {
    calls++;
    usec += us;
    if (with_error) failed++;
    if (track_latency) Record(us);
  }
  double Percentile(double p) const;  // upper bound of the bucket holding percentile p
};

struct CommandSpec {
  const char* name;
  int arity;  // > 0 exact, < 0 at least -arity
  uint32_t flags;
  Handler proc;
  const char* group;  // "string", "generic", "server", "connection", "transactions", ...
  const char* since;
  const char* summary;
  const char* complexity;
  std::vector<CommandSpec> subcommands;
  // Filled at registration.
  std::string fullname;  // "config|get"
  const CommandSpec* parent = nullptr;
  mutable CommandStats stats;
  std::vector<KeySpec> key_specs;             // where the keys are (command_keys.h)
  int first_key = 0, last_key = 0, step = 0;  // COMMAND INFO's legacy triple, from key_specs
  KeysProc keys_proc = nullptr;               // for specs that cannot say it all
  int acl_id = -1;                            // bit of ACL command bitmaps (acl.h)
  uint32_t acl_categories = 0;                // acl::Category bits
};

// Every command family adds its entries here (commands/*.cc).
void RegisterStringCommands(std::vector<CommandSpec>* t);
void RegisterBitmapCommands(std::vector<CommandSpec>* t);
void RegisterHyperLogLogCommands(std::vector<CommandSpec>* t);
void RegisterUnsupportedCommands(std::vector<CommandSpec>* t);  // scripting, modules
void RegisterSortCommands(std::vector<CommandSpec>* t);
void RegisterKeyCommands(std::vector<CommandSpec>* t);
void RegisterServerCommands(std::vector<CommandSpec>* t);
void RegisterLolwutCommands(std::vector<CommandSpec>* t);
void RegisterConnectionCommands(std::vector<CommandSpec>* t);
void RegisterTransactionCommands(std::vector<CommandSpec>* t);
void RegisterPubsubCommands(std::vector<CommandSpec>* t);
void RegisterHashCommands(std::vector<CommandSpec>* t);
void RegisterListCommands(std::vector<CommandSpec>* t);
void RegisterSetCommands(std::vector<CommandSpec>* t);
void RegisterZSetCommands(std::vector<CommandSpec>* t);
void RegisterGeoCommands(std::vector<CommandSpec>* t);
void RegisterStreamCommands(std::vector<CommandSpec>* t);
void RegisterPersistenceCommands(std::vector<CommandSpec>* t);
void RegisterMigrateCommands(std::vector<CommandSpec>* t);
void RegisterAclCommands(std::vector<CommandSpec>* t);

// MIGRATE's cached connections to target nodes (commands/migrate.cc): the server cron closes
// the idle ones, INFO counts them.
void MigrateCloseIdleConnections();
size_t MigrateCachedConnections();

void BuildCommandTable();
const CommandSpec* LookupCommand(std::string_view name);
// Resolves container commands: returns the subcommand spec or the command itself.
const CommandSpec* LookupCommandArgv(const std::vector<std::string_view>& argv);
// By the name clients use (after rename-command).
const std::vector<CommandSpec*>& AllCommands();  // top-level, sorted by name, minus disabled
// Every command and subcommand by acl_id (renamed or disabled ones included).
const std::vector<const CommandSpec*>& CommandsByAclId();
// By the real name, whatever rename-command did: for the primary link and internal calls.
const CommandSpec* LookupRealCommand(std::string_view name);
// rename-command: `to` empty disables the command. Returns false with Valkey's error text.
bool RenameInCommandTable(std::string_view from, std::string_view to, std::string* err);
bool CommandsRenamed();  // some rename-command took effect
// Name as the client typed it, lower case ("config|get" for subcommands).
std::string FlagNames(uint32_t flags, std::vector<std::string>* out);
void AclCategories(const CommandSpec* cmd, std::vector<std::string>* out);

// Shared error replies (exact Valkey texts).
inline constexpr const char* kErrWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr const char* kErrNotInt = "value is not an integer or out of range";
inline constexpr const char* kErrNotFloat = "value is not a valid float";
inline constexpr const char* kErrSyntax = "syntax error";
inline constexpr const char* kErrNoSuchKey = "no such key";
inline constexpr const char* kErrOverflow = "increment or decrement would overflow";

// Argument helpers: on failure they reply the error and return false.
bool ArgInt(Client* c, std::string_view s, int64_t* out, const char* err = kErrNotInt);
bool ArgDouble(Client* c, std::string_view s, double* out);
bool ArgLongDouble(Client* c, std::string_view s, long double* out);
std::string ArityText(const CommandSpec* cmd);
std::string UnknownSubcommandText(std::string_view sub, std::string_view cmd);
// Replies "wrong number of arguments for '<name>' command".
void ReplyArity(Client* c, const CommandSpec* cmd);
void ReplyUnknownSubcommand(Client* c, std::string_view sub, std::string_view cmd);
// HELP output: lines as an array of status strings.
void ReplyHelp(Client* c, std::string_view cmd, const std::vector<const char*>& lines);

}  // namespace server
