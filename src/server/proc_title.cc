#include "server/proc_title.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

extern char** environ;

namespace server {
namespace {

char* g_area = nullptr;  // argv[0]'s bytes and the argument and environment strings after it
size_t g_area_len = 0;

std::optional<std::string> Variable(std::string_view name, const ProcTitleVars& v) {
  if (name == "title") return v.title;
  if (name == "listen-addr") return v.listen_addr;
  if (name == "server-mode") return v.server_mode;
  if (name == "config-file") return v.config_file;
  if (name == "port") return v.port;
  if (name == "tls-port") return v.tls_port;
  if (name == "unixsocket") return v.unixsocket;
  return std::nullopt;
}

}  // namespace

void ProcTitleInit(int argc, char** argv) {
  if (argc < 1 || !argv[0]) return;
  // The kernel lays the argument strings and then the environment's out one after another;
  // the title may use all of that run.
  char* end = argv[0] + strlen(argv[0]) + 1;
  for (int i = 1; i < argc; i++)
    if (argv[i] == end) end += strlen(argv[i]) + 1;
  size_t n = 0;
  while (environ && environ[n]) n++;
  bool env_in_run = false;
  for (size_t i = 0; i < n; i++)
    if (environ[i] == end) {
      end += strlen(environ[i]) + 1;
      env_in_run = true;
    }
  if (env_in_run) {  // the environment moves out of the way, for getenv and the children
    char** copy = new char*[n + 1];
    for (size_t i = 0; i < n; i++) copy[i] = strdup(environ[i]);
    copy[n] = nullptr;
    environ = copy;
  }
  g_area = argv[0];
  g_area_len = static_cast<size_t>(end - argv[0]);
}

bool ExpandProcTitle(std::string_view tmpl, const ProcTitleVars& vars, std::string* out) {
  std::string res;
  size_t p = 0;
  while (p < tmpl.size()) {
    size_t open = tmpl.find('{', p);
    if (open == std::string_view::npos) {
      res.append(tmpl.substr(p));
      break;
    }
    res.append(tmpl.substr(p, open - p));
    if (open + 1 >= tmpl.size()) return false;  // ends in '{'
    if (tmpl[open + 1] == '{') {                // "{{": a brace
      res += '{';
      p = open + 2;
      continue;
    }
    size_t close = tmpl.find('}', open + 1);
    if (close == std::string_view::npos) return false;
    std::optional<std::string> v = Variable(tmpl.substr(open + 1, close - open - 1), vars);
    if (!v) return false;
    res += *v;
    p = close + 1;
  }
  size_t b = res.find_first_not_of(' '), e = res.find_last_not_of(' ');
  *out = b == std::string::npos ? std::string() : res.substr(b, e - b + 1);
  return true;
}

void WriteProcTitle(std::string_view text) {
  if (!g_area || g_area_len < 2) return;
  size_t n = std::min(text.size(), g_area_len - 1);
  memcpy(g_area, text.data(), n);
  memset(g_area + n, 0, g_area_len - n);
}

}  // namespace server
