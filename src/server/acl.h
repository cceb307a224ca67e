// ACL: users (passwords, on/off), their selectors (commands, key patterns, channel patterns),
// the permission check of the execution gate, the ACL log, and the users' file and config
// lines. Rules, texts and the descriptions ACL LIST/GETUSER print are Valkey 8's.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace server {
struct Client;
struct CommandSpec;
}  // namespace server

namespace server::acl {

// Command categories, in the order ACL CAT lists them.
enum Category : uint32_t {
  kAclKeyspace = 1 << 0,
  kAclRead = 1 << 1,
  kAclWrite = 1 << 2,
  kAclSet = 1 << 3,
  kAclSortedset = 1 << 4,
  kAclList = 1 << 5,
  kAclHash = 1 << 6,
  kAclString = 1 << 7,
  kAclBitmap = 1 << 8,
  kAclHyperloglog = 1 << 9,
  kAclGeo = 1 << 10,
  kAclStream = 1 << 11,
  kAclPubsub = 1 << 12,
  kAclAdmin = 1 << 13,
  kAclFast = 1 << 14,
  kAclSlow = 1 << 15,
  kAclBlocking = 1 << 16,
  kAclDangerous = 1 << 17,
  kAclConnection = 1 << 18,
  kAclTransaction = 1 << 19,
  kAclScripting = 1 << 20,
};
inline constexpr int kNumCategories = 21;
extern const char* const kCategoryNames[kNumCategories];
// The categories of a command by its full name (Valkey 8's table), or flags-derived ones for a
// command Valkey does not have.
uint32_t CategoriesOf(const CommandSpec* cmd);

enum Perm : uint8_t { kPermRead = 1, kPermWrite = 2, kPermAll = 3 };

struct KeyPattern {
  std::string pattern;
  uint8_t perm;  // Perm bits
};

// One set of permissions. A command is allowed when one selector allows the command and all
// its keys and channels.
struct Selector {
  bool allkeys = false, allchannels = false;
  bool allcommands = false;        // +@all: also commands added later (described as +@all)
  std::vector<uint64_t> allowed;   // by CommandSpec::acl_id
  std::unordered_map<int, std::vector<std::string>> firstargs;  // +cmd|arg, by acl_id
  std::vector<KeyPattern> keys;
  std::vector<std::string> channels;
  std::vector<std::string> rules;  // the command rules, compacted, in order ("+get", "-@read")
};

struct User {
  std::string name;
  bool enabled = false, nopass = false, skip_sanitize_payload = false;
  std::vector<std::string> passwords;  // SHA-256 hex, in the order added
  std::vector<Selector> selectors;     // [0] is the root selector
  // The root selector allows every command, key and channel: the check is skipped.
  bool unrestricted = false;
};

// ---- rules (acl_rules.cc): pure functions of a user and the command table ----

// A new user as ACL SETUSER creates it: off, no passwords, no commands, keys or channels
// (all channels when acl-pubsub-default is allchannels).
User NewUser(std::string_view name);
// Applies the modifiers of ACL SETUSER or of a `user` line, in order, to u. Arguments that
// open a selector with '(' are joined up to the one that closes it. On error u may be half
// changed (callers work on a copy) and err holds Valkey's message without the "ERR " prefix
// (reason, when given: the form the ACL file's errors print).
bool ApplyRules(User* u, const std::vector<std::string_view>& args, std::string* err,
                std::string* reason = nullptr);
// The `user ...` line of ACL LIST and of the ACL file.
std::string DescribeUser(const User& u);
// The pieces ACL GETUSER prints for a selector.
std::string DescribeKeys(const Selector& s);
std::string DescribeChannels(const Selector& s);
std::string DescribeCommands(const Selector& s);
// Valid as a name: no spaces or NULs.
bool ValidUserName(std::string_view name);

enum class Verdict { kOk, kDeniedCmd, kDeniedKey, kDeniedAuth, kDeniedChannel };
// Whether u may run cmd with argv; on denial *pos is the argument that failed (0 for the
// command itself). Selectors are tried in order; the denial reported is the most specific.
Verdict Check(const User& u, const CommandSpec* cmd, const std::vector<std::string_view>& argv,
              int* pos);
// A selector that allows cmd and reads (perm) every key: SORT's BY and GET patterns need one.
bool HasUnrestrictedKeyAccess(const User& u, const CommandSpec* cmd,
                              const std::vector<std::string_view>& argv, uint8_t perm);
// Whether u may stay subscribed to a channel (pattern: a PSUBSCRIBE pattern).
bool ChannelAllowed(const User& u, std::string_view channel, bool pattern);

// ---- the users of this node (acl.cc) ----

User* FindUser(std::string_view name);
User* DefaultUser();
std::vector<const User*> AllUsers();  // sorted by name
// Creates or changes a user with the modifiers; all or nothing. Clients of the user keep their
// connections (pub/sub clients whose channels are no longer allowed are closed).
bool SetUser(std::string_view name, const std::vector<std::string_view>& args, std::string* err);
// Deletes a user and closes its clients (after the reply when c is one). False for "default".
bool DeleteUser(std::string_view name, Client* c);
// Credentials: the user when it exists, is on and the password matches (or it is nopass).
User* Authenticate(std::string_view name, std::string_view pass);
// A new connection's state: the default user, authenticated when it needs no password.
void AttachDefaultUser(Client* c);
// requirepass (config file or CONFIG SET): the default user's one password, or nopass.
void SetRequirePass(std::string_view pass);

// The gate's check: logs a denial and gives the -NOPERM error to reply. Skipped for the
// node's own clients and for users without restrictions. context: "toplevel" or "multi".
bool CheckCommand(Client* c, const CommandSpec* cmd, const std::vector<std::string_view>& argv,
                  const char* context, std::string* err);
// The NOPERM text of a denial (ACL DRYRUN prints it with the user and the object).
std::string DenialText(const User& u, const CommandSpec* cmd, Verdict v, std::string_view obj,
                       bool verbose);

// ---- the ACL log ----
void LogDenial(Client* c, Verdict v, const char* context, std::string_view object,
               std::string_view username);
void ReplyLog(Client* c, int64_t count);
void ResetLog();
struct DeniedStats {
  uint64_t auth = 0, cmd = 0, key = 0, channel = 0;
};
const DeniedStats& Denied();

// ---- users from the configuration ----
// A `user` line of the config file, kept until StartUsers applies them.
bool QueueConfigUser(const std::vector<std::string_view>& args, std::string* err);
// At start: the config file's users, or the aclfile. False (with the message) stops the start.
bool StartUsers(std::string* err);
// ACL LOAD / ACL SAVE with the aclfile.
bool LoadFile(std::string* err);
bool SaveFile(std::string* err);
// CONFIG REWRITE: the `user` lines for the config file (none with an aclfile).
std::vector<std::string> ConfigUserLines();

}  // namespace server::acl
