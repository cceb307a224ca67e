// ACL rules as pure functions: SHA-256 vectors, what each modifier does to a user, the
// descriptions, and the permission check with selectors (keys by read/write need, channels).
#include <string>
#include <vector>

#include "base/sha256.h"
#include "check.h"
#include "server/acl.h"
#include "server/command.h"

namespace {

using server::acl::User;
using server::acl::Verdict;

void Table() {
  if (server::AllCommands().empty()) server::BuildCommandTable();
}

User Make(std::vector<std::string_view> rules) {
  Table();
  User u = server::acl::NewUser("u");
  std::string err;
  server::acl::ApplyRules(&u, rules, &err);
  return u;
}

Verdict CheckArgs(const User& u, std::vector<std::string_view> argv, int* pos) {
  const server::CommandSpec* cmd = server::LookupCommandArgv(argv);
  return server::acl::Check(u, cmd, argv, pos);
}

}  // namespace

TEST_CASE(Sha256Vectors) {
  CHECK_EQ(base::Sha256Hex(""),
           std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
  CHECK_EQ(base::Sha256Hex("abc"),
           std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  // Two blocks: the padding does not fit after 56 bytes.
  CHECK_EQ(base::Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
           std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
  CHECK_EQ(base::Sha256Hex(std::string(1000000, 'a')),
           std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
  CHECK_EQ(base::Sha256Hex(std::string(64, 'x')), base::Sha256Hex(std::string(64, 'x')));
  CHECK(base::Sha256Hex(std::string(55, 'x')) != base::Sha256Hex(std::string(56, 'x')));
}

TEST_CASE(AclRulesDescribe) {
  User u = Make({"on", ">pw", "+@all", "-get", "+set", "~k*", "%R~r*", "%W~w*", "&ch*"});
  CHECK_EQ(server::acl::DescribeUser(u),
           std::string("user u on sanitize-payload "
                       "#30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~k* "
                       "%R~r* %W~w* resetchannels &ch* +@all -get +set"));
  // A rule replaces the earlier ones about the same command (and its subcommands).
  User v = Make({"+config|get", "+config|set", "+config", "-config|get", "+get", "-get", "+get"});
  CHECK_EQ(server::acl::DescribeCommands(v.selectors[0]),
           std::string("-@all +config -config|get +get"));
  // Read and write patterns on one name merge into one.
  User w = Make({"%R~x", "%W~x", "%R~y"});
  CHECK_EQ(server::acl::DescribeKeys(w.selectors[0]), std::string("~x %R~y"));
  User s = Make({"(~a* +get)", "(+set", "~b*)"});
  CHECK_EQ(server::acl::DescribeUser(s),
           std::string("user u off sanitize-payload resetchannels -@all (~a* resetchannels -@all "
                       "+get) (~b* resetchannels -@all +set)"));
}

TEST_CASE(AclRuleErrors) {
  Table();
  struct Case {
    std::vector<std::string_view> rules;
    const char* err;
  } cases[] = {
      {{"+nosuch"},
       "Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"},
      {{"-select|0"},
       "Error in ACL SETUSER modifier '-select|0': Unknown command or category name in ACL"},
      {{"+get|key1|key2"},
       "Error in ACL SETUSER modifier '+get|key1|key2': Unknown command or category name in ACL"},
      {{"-get|key1|key2"},
       "Error in ACL SETUSER modifier '-get|key1|key2': Unknown command or category name in ACL"},
      {{"+config|get|x"},
       "Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is "
       "not supported"},
      {{"bogus"}, "Error in ACL SETUSER modifier 'bogus': Syntax error"},
      {{"%X~k"}, "Error in ACL SETUSER modifier '%X~k': Syntax error"},
      {{"(on)"}, "Error in ACL SETUSER modifier '(on)': Syntax error"},
      {{"(~x", "+get"}, "Unmatched parenthesis in acl selector starting at '(~x'."},
      {{"<nope"},
       "Error in ACL SETUSER modifier '<nope': The password you are trying to remove from the "
       "user does not exist"},
      {{"#ABC"},
       "Error in ACL SETUSER modifier '#ABC': The password hash must be exactly 64 characters "
       "and contain only lowercase hexadecimal characters"},
      {{"~*", "~x"},
       "Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern (or the "
       "'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start "
       "with an empty list of patterns"},
  };
  for (auto& c : cases) {
    User u = server::acl::NewUser("u");
    std::string err;
    CHECK(!server::acl::ApplyRules(&u, c.rules, &err));
    CHECK_EQ(err, std::string(c.err));
  }
}

TEST_CASE(AclCheckKeysChannelsSelectors) {
  int pos;
  User u = Make({"on", "%R~r*", "%W~w*", "&ch*", "+@all"});
  CHECK(!u.unrestricted);
  CHECK(CheckArgs(u, {"get", "r1"}, &pos) == Verdict::kOk);
  CHECK(CheckArgs(u, {"set", "r1", "v"}, &pos) == Verdict::kDeniedKey);
  CHECK_EQ(pos, 1);
  CHECK(CheckArgs(u, {"copy", "r1", "w1"}, &pos) == Verdict::kOk);
  CHECK(CheckArgs(u, {"copy", "w1", "r1"}, &pos) == Verdict::kDeniedKey);
  CHECK(CheckArgs(u, {"exists", "w1"}, &pos) == Verdict::kOk);  // no read or write need
  CHECK(CheckArgs(u, {"publish", "ch1", "m"}, &pos) == Verdict::kOk);
  CHECK(CheckArgs(u, {"publish", "x", "m"}, &pos) == Verdict::kDeniedChannel);
  CHECK(CheckArgs(u, {"psubscribe", "ch*"}, &pos) == Verdict::kOk);  // literal pattern
  CHECK(CheckArgs(u, {"psubscribe", "ch1*"}, &pos) == Verdict::kDeniedChannel);
  CHECK(CheckArgs(u, {"unsubscribe", "x"}, &pos) == Verdict::kOk);
  // Selectors: one that allows everything about the call is enough; otherwise the most
  // specific denial is reported.
  User s = Make({"on", "(+get ~a*)", "(+set ~b*)"});
  CHECK(CheckArgs(s, {"get", "a1"}, &pos) == Verdict::kOk);
  CHECK(CheckArgs(s, {"set", "b1", "v"}, &pos) == Verdict::kOk);
  CHECK(CheckArgs(s, {"set", "a1", "v"}, &pos) == Verdict::kDeniedKey);
  CHECK(CheckArgs(s, {"del", "a1"}, &pos) == Verdict::kDeniedCmd);
  // First arguments of commands without subcommands.
  User f = Make({"on", "~*", "+select|0"});
  CHECK(CheckArgs(f, {"select", "0"}, &pos) == Verdict::kOk);
  CHECK(CheckArgs(f, {"select", "1"}, &pos) == Verdict::kDeniedCmd);
  User all = Make({"on", "~*", "&*", "+@all"});
  CHECK(all.unrestricted);
  User minus = Make({"on", "~*", "&*", "+@all", "-get"});
  CHECK(!minus.unrestricted);
}
