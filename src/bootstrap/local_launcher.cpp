#include "bootstrap/local_launcher.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>

#include "bootstrap/rank_runner.hpp"
#include "bootstrap/rendezvous_client.hpp"
#include "bootstrap/rendezvous_server.hpp"
#include "core/error.hpp"
#include "core/placement.hpp"
#include "core/secret.hpp"

namespace evb::boot {

namespace {

struct Child {
  pid_t pid = -1;
  int rank = 0;
  bool reaped = false;
};

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return "signal " + std::to_string(sig) + " (" + (name ? name : "?") + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

std::string make_token() {
  return random_hex(16);
}

// bind: core -> the CPU of each rank (core/placement.hpp); bind: none ->
// none. With more ranks than allowed CPUs none is bound either: ranks
// pinned two to a CPU stalled one another for a whole second under load
// (a 1 s run of gather-cmd-meta, layout split, beside another run: 2 runs
// in 40 with nothing in the window; 0 in 40 unbound), where the kernel
// moves a runnable rank to the CPU that is free. Not said here: stderr is
// for failures, and the report's placement line says it once.
std::vector<int> plan_cpus(const Config& config, int nprocs) {
  if (config.bind != Bind::core) return {};
  const std::vector<int> allowed = allowed_cpus();
  if (static_cast<size_t>(nprocs) > allowed.size()) return {};
  return choose_cpus(cpu_topology(allowed), nprocs);
}

// Runs in the forked child; never returns. `cpu` >= 0: bind to it first.
[[noreturn]] void child_main(const Config& config, int rank, int nprocs, int port,
                             const std::string& token, pid_t parent, const sigset_t& old_mask,
                             const WorkerFn& worker, int cpu, Clock::time_point launched) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(kExitRuntime);
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  int code = kExitRuntime;
  // A rank's failure reaches the launcher with its abort and is reported
  // there once; a rank stopped because another failed says nothing. Only a
  // failure the launcher cannot have heard of is printed here.
  try {
    if (cpu >= 0) bind_to_cpu(cpu);
    ClientOptions o;
    o.port = port;
    o.token = token;
    o.rank = rank;
    o.size = nprocs;
    o.connect_timeout = std::chrono::milliseconds(10000);
    o.join_timeout = std::chrono::milliseconds(setup_timeout_ms(config));
    o.server_owner = "the launcher (parent process)";
    o.launched_at = launched;
    RendezvousClient client(o);
    code = run_worker(client, worker, [&client](const std::string& message) {
      if (!client.abort_delivered() && !client.stopped_by_server()) log_line(message);
    });
  } catch (const RendezvousFailure&) {
    code = kExitRuntime;  // the launcher's server failed the run: it reports why
  } catch (const std::exception& e) {
    log_line(e.what());  // the client's setup errors name the rank
    code = exit_code_for(e);
  } catch (...) {
    code = kExitRuntime;
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(code);
}

// Supervises the forked children until every one is reaped.
class Supervisor {
 public:
  Supervisor(std::vector<Child>& children, RendezvousServer& server, const sigset_t& sigs,
             const LocalOptions& opt)
      : children_(children), server_(server), sigs_(sigs), opt_(opt) {
    sigemptyset(&interrupts_);
    sigaddset(&interrupts_, SIGINT);
    sigaddset(&interrupts_, SIGTERM);
  }

  int run() {
    while (live() > 0) {
      timespec ts{0, 200 * 1000 * 1000};
      if (terminating_ || suspect_) {
        auto left = (terminating_ ? deadline_ : suspect_deadline_) - Clock::now();
        if (terminating_ && left <= Clock::duration::zero()) {
          kill_live(SIGKILL);
          for (auto& c : children_) reap(c, 0);
          break;
        }
        auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        ns = std::clamp<long long>(ns, 0, 200ll * 1000 * 1000);
        ts = {static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
      }
      int sig = ::sigtimedwait(&sigs_, nullptr, &ts);
      if (sig == SIGINT || sig == SIGTERM) on_interrupt(sig);
      reap_pass();
      if (suspect_ && Clock::now() >= suspect_deadline_) blame_suspect();
    }
    if (suspect_) blame_suspect();
    if (interrupted_) return kExitInterrupted;
    return combine_exit_codes(codes_);
  }

 private:
  int live() const {
    return static_cast<int>(std::count_if(children_.begin(), children_.end(),
                                          [](const Child& c) { return !c.reaped; }));
  }

  void kill_live(int sig) {
    for (auto& c : children_)
      if (!c.reaped) ::kill(c.pid, sig);
  }

  void terminate_rest(int sig) {
    if (terminating_) return;
    terminating_ = true;
    deadline_ = Clock::now() + opt_.term_grace;
    kill_live(sig);
  }

  void on_interrupt(int sig) {
    if (interrupted_) {
      kill_live(SIGKILL);  // a second Ctrl-C: no more patience
      return;
    }
    interrupted_ = true;
    log_line(std::string("interrupted (") + strsignal(sig) + "), stopping " +
             std::to_string(live()) + " rank(s)");
    if (terminating_) {
      kill_live(sig);
    } else {
      terminate_rest(sig);
    }
  }

  // Reaps every child that has ended; deaths by signal are judged first, so
  // the rank that crashed is blamed rather than the ranks that noticed it.
  // A Ctrl-C reaches the ranks with the launcher (one process group): an
  // interrupt still pending is taken first, so its victims are not blamed.
  void reap_pass() {
    const timespec now{0, 0};
    for (int sig; (sig = ::sigtimedwait(&interrupts_, nullptr, &now)) > 0;) on_interrupt(sig);
    std::vector<std::pair<Child*, int>> ended;
    for (auto& c : children_) {
      if (c.reaped) continue;
      int status = 0;
      pid_t r = ::waitpid(c.pid, &status, WNOHANG);
      if (r == 0 || (r < 0 && errno == EINTR)) continue;
      c.reaped = true;
      if (r > 0) ended.emplace_back(&c, status);
    }
    std::stable_sort(ended.begin(), ended.end(), [](const auto& a, const auto& b) {
      return WIFSIGNALED(a.second) && !WIFSIGNALED(b.second);
    });
    for (auto& [c, status] : ended) judge(*c, status);
  }

  void reap(Child& c, int flags) {
    if (c.reaped) return;
    int status = 0;
    pid_t r = ::waitpid(c.pid, &status, flags);
    if (r == 0 || (r < 0 && errno == EINTR)) return;
    c.reaped = true;
    if (r > 0) judge(c, status);
  }

  // A rank killed by a signal is blamed at once. A rank that exits non-zero
  // without a goodbye has often only noticed that a peer died, and the
  // kernel may reap the killed peer a little later: it is blamed only if no
  // rank dies by a signal within `blame_grace`; later failures are collateral.
  void judge(Child& c, int status) {
    if (terminating_) return;  // collateral of our own SIGTERM/SIGKILL
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
    bool clean =
        WIFEXITED(status) && server_.rank_state(c.rank) == RendezvousServer::RankState::goodbye;
    if (clean) {  // the worker finished and returned a verdict (e.g. integrity)
      codes_.push_back(WEXITSTATUS(status));
      log_line("rank " + std::to_string(c.rank) + " (pid " + std::to_string(c.pid) +
               ") finished with status " + std::to_string(WEXITSTATUS(status)));
      return;
    }
    if (WIFSIGNALED(status) && opt_.tolerate_loss && c.rank != 0 && !server_.failed()) {
      log_line("rank " + std::to_string(c.rank) + " (pid " + std::to_string(c.pid) + ") died: " +
               describe_status(status) + "; the others go on without it (on_failure: exclude)");
      return;
    }
    if (WIFSIGNALED(status)) {
      suspect_ = nullptr;  // whoever exited before it had noticed its death
      blame(c, status);
      return;
    }
    if (suspect_) return;  // noticed the same failure as the suspect
    suspect_ = &c;
    suspect_status_ = status;
    suspect_deadline_ = Clock::now() + opt_.blame_grace;
  }

  void blame_suspect() {
    Child& c = *suspect_;
    suspect_ = nullptr;
    if (!terminating_) blame(c, suspect_status_);
  }

  void blame(Child& c, int status) {
    codes_.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : int{kExitRuntime});
    report_cause(c, status);
    terminate_rest(SIGTERM);
  }

  // One failure, one message: the rank's own error if it sent one (an
  // abort), else the server's reason (a join timeout, a collective
  // mismatch), else how the process ended. A rank killed by a signal is
  // named with its signal, after the first survivor's view of it (which
  // names its units and the connection) when that names it.
  void report_cause(const Child& c, int status) {
    const std::string died = "rank " + std::to_string(c.rank) + " (pid " + std::to_string(c.pid) +
                             ") died: " + describe_status(status);
    if (WIFSIGNALED(status)) {
      if (auto a = server_.first_abort(); a && (a->rank == c.rank || names(a->message, c.rank)))
        log_line(rank_message(a->rank, a->message));
      log_line(died);
      return;
    }
    // It exited on its own: its abort, if any, is on its way to the server.
    if (auto a = server_.first_abort(std::chrono::milliseconds(200))) {
      log_line(rank_message(a->rank, a->message));
      return;
    }
    if (auto f = server_.first_failure(); f && !f->peer_lost) {
      log_line(f->message);
      return;
    }
    log_line(died);
  }

  // True when `message` names "rank R" (not "rank R0").
  static bool names(const std::string& message, int rank) {
    const std::string name = "rank " + std::to_string(rank);
    for (size_t at = message.find(name); at != std::string::npos; at = message.find(name, at + 1)) {
      const size_t end = at + name.size();
      if (end == message.size() || !std::isdigit(static_cast<unsigned char>(message[end])))
        return true;
    }
    return false;
  }

  std::vector<Child>& children_;
  RendezvousServer& server_;
  const sigset_t& sigs_;
  const LocalOptions& opt_;
  sigset_t interrupts_;
  bool terminating_ = false;
  bool interrupted_ = false;
  Clock::time_point deadline_;
  Child* suspect_ = nullptr;  // exited non-zero without a goodbye, not blamed yet
  int suspect_status_ = 0;
  Clock::time_point suspect_deadline_;
  std::vector<int> codes_;
};

void kill_and_reap(std::vector<Child>& children) noexcept {
  for (auto& c : children)
    if (!c.reaped) ::kill(c.pid, SIGKILL);
  for (auto& c : children) {
    if (c.reaped) continue;
    int st;
    while (::waitpid(c.pid, &st, 0) < 0 && errno == EINTR) {
    }
    c.reaped = true;
  }
}

}  // namespace

int combine_exit_codes(const std::vector<int>& codes) {
  if (codes.empty()) return kExitOk;
  if (std::all_of(codes.begin(), codes.end(), [&](int c) { return c == codes[0]; }))
    return codes[0];
  return *std::max_element(codes.begin(), codes.end());
}

int launch_local(const Config& config, int nprocs, const WorkerFn& worker,
                 const LocalOptions& options) {
  if (nprocs < 1) throw Error("bootstrap local: nprocs must be >= 1");
  ServerOptions so;
  so.host = "127.0.0.1";
  so.port = 0;
  so.token = make_token();
  so.size = nprocs;
  so.join_timeout = std::chrono::milliseconds(setup_timeout_ms(config));
  so.slow_round_warning = so.join_timeout;
  so.tolerate_loss = options.tolerate_loss;
  so.log_failures = false;  // the supervisor reports the first cause once
  RendezvousServer server(so);

  sigset_t sigs, old_mask;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGCHLD);
  ::pthread_sigmask(SIG_BLOCK, &sigs, &old_mask);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);  // or buffered output would be printed by every child

  const std::vector<int> cpus = plan_cpus(config, nprocs);
  std::vector<Child> children;
  const pid_t parent = ::getpid();
  int rc = kExitRuntime;
  const Clock::time_point launched = Clock::now();
  try {
    for (int r = 0; r < nprocs; ++r) {
      pid_t pid = ::fork();
      if (pid < 0)
        throw Error("bootstrap local: fork of rank " + std::to_string(r) +
                    " failed: " + std::strerror(errno));
      if (pid == 0) {
        server.abandon_in_child();
        child_main(config, r, nprocs, server.port(), so.token, parent, old_mask, worker,
                   cpus.empty() ? -1 : cpus[static_cast<size_t>(r)], launched);
      }
      children.push_back({pid, r, false});
    }
    server.start();
    rc = Supervisor(children, server, sigs, options).run();
  } catch (...) {
    kill_and_reap(children);
    server.stop();
    ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    throw;
  }
  kill_and_reap(children);  // no-op unless the supervisor left some behind
  server.stop();
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  return rc;
}

}  // namespace evb::boot
