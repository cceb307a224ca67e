// Entry point of valkey-server.
namespace server {
int Main(int argc, char** argv);
}
int main(int argc, char** argv) { return server::Main(argc, argv); }
