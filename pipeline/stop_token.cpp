// InterruptGuard: SIGINT/SIGTERM request a clean stop; a second signal exits at once.
#include "pipeline/stop_token.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace prism {

namespace {
std::atomic<StopToken*> g_token{nullptr};
std::atomic<bool> g_interrupted{false};
struct sigaction g_previous_int{};
struct sigaction g_previous_term{};

extern "C" void on_interrupt(int) {
  if (g_interrupted.exchange(true)) _exit(130);  // second Ctrl-C: the user means it
  if (StopToken* token = g_token.load()) token->request_stop();
}
}  // namespace

InterruptGuard::InterruptGuard(StopToken& token) : outer_(g_token.exchange(&token)) {
  if (outer_ != nullptr) return;  // nested: the handler is installed already
  g_interrupted = false;
  struct sigaction action{};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptGuard::~InterruptGuard() {
  if (outer_ != nullptr) {
    if (g_interrupted) outer_->request_stop();
    g_token = outer_;
    return;
  }
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
  g_token = nullptr;
}

bool InterruptGuard::interrupted() noexcept { return g_interrupted.load(); }

}  // namespace prism
