// ACL: SETUSER, GETUSER, DELUSER, LIST, USERS, WHOAMI, CAT, GENPASS, LOG, DRYRUN, LOAD, SAVE,
// HELP. The users and rules live in server/acl*.cc; this file parses and replies.
#include "server/acl.h"

#include "base/util.h"
#include "commands/common.h"

namespace cmd {
namespace {

using server::Client;
using server::CommandSpec;
using namespace server;  // flags
namespace acl = server::acl;

void ReplyUser(Client* c, const acl::User& u) {
  auto r = c->R();
  r.MapLen(6);
  r.Bulk("flags");
  r.ArrayLen(u.nopass ? 3 : 2);
  r.Bulk(u.enabled ? "on" : "off");
  if (u.nopass) r.Bulk("nopass");
  r.Bulk(u.skip_sanitize_payload ? "skip-sanitize-payload" : "sanitize-payload");
  r.Bulk("passwords");
  r.ArrayLen(static_cast<int64_t>(u.passwords.size()));
  for (auto& p : u.passwords) r.Bulk(p);
  const acl::Selector& root = u.selectors[0];
  r.Bulk("commands");
  r.Bulk(acl::DescribeCommands(root));
  r.Bulk("keys");
  r.Bulk(acl::DescribeKeys(root));
  r.Bulk("channels");
  r.Bulk(acl::DescribeChannels(root));
  r.Bulk("selectors");
  r.ArrayLen(static_cast<int64_t>(u.selectors.size() - 1));
  for (size_t i = 1; i < u.selectors.size(); i++) {
    r.MapLen(3);
    r.Bulk("commands");
    r.Bulk(acl::DescribeCommands(u.selectors[i]));
    r.Bulk("keys");
    r.Bulk(acl::DescribeKeys(u.selectors[i]));
    r.Bulk("channels");
    r.Bulk(acl::DescribeChannels(u.selectors[i]));
  }
}

void ReplySyntax(Client* c) {
  c->R().Error("unknown subcommand or wrong number of arguments for '" + std::string(c->argv[1]) +
               "'. Try ACL HELP.");
}

void AclCat(Client* c) {
  auto& a = c->argv;
  auto r = c->R();
  if (a.size() == 2) {
    r.ArrayLen(acl::kNumCategories);
    for (auto* n : acl::kCategoryNames) r.Bulk(n);
    return;
  }
  if (a.size() != 3) return ReplySyntax(c);
  int ci = -1;
  for (int i = 0; i < acl::kNumCategories; i++)
    if (base::EqualsNoCase(a[2], acl::kCategoryNames[i])) ci = i;
  if (ci < 0) return r.Error("Unknown category '" + std::string(a[2]) + "'");
  std::vector<const std::string*> names;
  for (const CommandSpec* cmd : AllCommands()) {
    if (cmd->subcommands.empty()) {
      if (cmd->acl_categories & (1u << ci)) names.push_back(&cmd->fullname);
      continue;
    }
    for (auto& s : cmd->subcommands)
      if (s.acl_categories & (1u << ci)) names.push_back(&s.fullname);
  }
  r.ArrayLen(static_cast<int64_t>(names.size()));
  for (auto* n : names) r.Bulk(*n);
}

void AclDryrun(Client* c) {
  auto& a = c->argv;
  acl::User* u = acl::FindUser(a[2]);
  if (!u) return c->R().Error("User '" + std::string(a[2]) + "' not found");
  std::vector<std::string_view> argv(a.begin() + 3, a.end());
  const CommandSpec* cmd = LookupCommandArgv(argv);
  if (!cmd) return c->R().Error("Command '" + std::string(a[3]) + "' not found");
  int64_t n = static_cast<int64_t>(argv.size());
  if ((cmd->arity > 0 && n != cmd->arity) || n < -cmd->arity) return ReplyArity(c, cmd);
  int pos;
  acl::Verdict v = acl::Check(*u, cmd, argv, &pos);
  if (v == acl::Verdict::kOk) return c->R().Ok();
  std::string_view obj = v == acl::Verdict::kDeniedCmd ? std::string_view(cmd->fullname) : argv[pos];
  c->R().Bulk(acl::DenialText(*u, cmd, v, obj, true));
}

void AclCommand(Client* c) {
  auto& a = c->argv;
  std::string sub = base::ToLower(a[1]);
  auto r = c->R();
  std::string err;
  if (sub == "setuser") {
    if (!acl::ValidUserName(a[2])) return r.Error("Usernames can't contain spaces or null characters");
    std::vector<std::string_view> rules(a.begin() + 3, a.end());
    if (!acl::SetUser(a[2], rules, &err)) return r.Error(err);
    return r.Ok();
  }
  if (sub == "getuser") {
    const acl::User* u = acl::FindUser(a[2]);
    if (!u) return r.Null();
    return ReplyUser(c, *u);
  }
  if (sub == "deluser") {
    int64_t n = 0;
    for (size_t i = 2; i < a.size(); i++) {
      if (a[i] == "default") return r.Error("The 'default' user cannot be removed");
      if (acl::DeleteUser(a[i], c)) n++;
    }
    return r.Int(n);
  }
  if (sub == "list" || sub == "users") {
    auto users = acl::AllUsers();
    r.ArrayLen(static_cast<int64_t>(users.size()));
    for (const acl::User* u : users) r.Bulk(sub == "list" ? acl::DescribeUser(*u) : u->name);
    return;
  }
  if (sub == "whoami") return r.Bulk(c->user ? c->user->name : "default");
  if (sub == "cat") return AclCat(c);
  if (sub == "genpass") {
    int64_t bits = 256;
    if (a.size() > 3) return ReplySyntax(c);
    if (a.size() == 3 && !ArgInt(c, a[2], &bits)) return;
    if (bits <= 0 || bits > 4096)
      return r.Error(
          "ACL GENPASS argument must be the number of bits for the output password, a positive "
          "number up to 4096");
    return r.Bulk(base::RandomHex(static_cast<int>((bits + 3) / 4)));
  }
  if (sub == "log") {
    if (a.size() > 3) return ReplySyntax(c);
    int64_t count = 10;
    if (a.size() == 3) {
      if (base::EqualsNoCase(a[2], "reset")) {
        acl::ResetLog();
        return r.Ok();
      }
      if (!ArgInt(c, a[2], &count)) return;
    }
    return acl::ReplyLog(c, count);
  }
  if (sub == "dryrun") return AclDryrun(c);
  if (sub == "load") {
    if (!acl::LoadFile(&err)) return r.Error(err);
    return r.Ok();
  }
  if (sub == "save") {
    if (!acl::SaveFile(&err)) return r.Error(err);
    return r.Ok();
  }
  if (sub == "help") {
    return ReplyHelp(
        c, "ACL",
        {"CAT [<category>]",
         "    List all commands that belong to <category>, or all command categories",
         "    when no category is specified.",
         "DELUSER <username> [<username> ...]",
         "    Delete a list of users.",
         "DRYRUN <username> <command> [<arg> ...]",
         "    Returns whether the user can execute the given command without executing the "
         "command.",
         "GETUSER <username>",
         "    Get the user's details.",
         "GENPASS [<bits>]",
         "    Generate a secure 256-bit user password. The optional `bits` argument can",
         "    be used to specify a different size.",
         "LIST",
         "    Show users details in config file format.",
         "LOAD",
         "    Reload users from the ACL file.",
         "LOG [<count> | RESET]",
         "    Show the ACL log entries.",
         "SAVE",
         "    Save the current config to the ACL file.",
         "SETUSER <username> <attribute> [<attribute> ...]",
         "    Create or modify a user with the specified attributes.",
         "USERS",
         "    List all the registered usernames.",
         "WHOAMI",
         "    Return the current connection username."});
  }
  ReplyUnknownSubcommand(c, a[1], "ACL");
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterAclCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "server";
  constexpr uint32_t kBase = kCmdNoScript | kCmdLoading | kCmdStale;
  constexpr uint32_t kAdm = kCmdAdmin | kBase;
  CommandSpec acl{"acl", -2, 0, nullptr, g, "6.0.0",
                  "A container for Access List Control commands.", "Depends on subcommand."};
  acl.subcommands = {
      {"cat", -2, kBase, AclCommand, g, "6.0.0",
       "Lists the ACL categories, or the commands inside a category.", "O(1) since the categories and commands are a fixed set."},
      {"deluser", -3, kAdm, AclCommand, g, "6.0.0", "Deletes ACL users, and terminates their connections.",
       "O(1) amortized time considering the typical user."},
      {"dryrun", -4, kAdm, AclCommand, g, "7.0.0",
       "Simulates the execution of a command by a user, without executing the command.", "O(1)."},
      {"genpass", -2, kBase, AclCommand, g, "6.0.0",
       "Generates a pseudorandom, secure password that can be used to identify ACL users.",
       "O(1)"},
      {"getuser", 3, kAdm, AclCommand, g, "6.0.0", "Lists the ACL rules of a user.",
       "O(N). Where N is the number of password, command and pattern rules that the user has."},
      {"help", 2, kCmdLoading | kCmdStale, AclCommand, g, "6.0.0",
       "Returns helpful text about the different subcommands.", "O(1)"},
      {"list", 2, kAdm, AclCommand, g, "6.0.0", "Dumps the effective rules in ACL file format.",
       "O(N). Where N is the number of configured users."},
      {"load", 2, kAdm, AclCommand, g, "6.0.0", "Reloads the rules from the configured ACL file.",
       "O(N). Where N is the number of configured users."},
      {"log", -2, kAdm, AclCommand, g, "6.0.0",
       "Lists recent security events generated due to ACL rules.",
       "O(N) with N being the number of entries shown."},
      {"save", 2, kAdm, AclCommand, g, "6.0.0",
       "Saves the effective ACL rules in the configured ACL file.",
       "O(N). Where N is the number of configured users."},
      {"setuser", -3, kAdm, AclCommand, g, "6.0.0", "Creates and modifies an ACL user and its rules.",
       "O(N). Where N is the number of rules provided."},
      {"users", 2, kAdm, AclCommand, g, "6.0.0", "Lists all ACL users.",
       "O(N). Where N is the number of configured users."},
      {"whoami", 2, kBase, AclCommand, g, "6.0.0",
       "Returns the authenticated username of the current connection.", "O(1)"},
  };
  t->push_back(std::move(acl));
}

}  // namespace server
