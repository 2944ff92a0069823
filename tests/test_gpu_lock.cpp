// GpuLock between processes: a second run sees the first one's PID, fails fast with --no-wait, or waits.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock_test_env.hpp"
#include "collect/clock/gpu_lock.hpp"
#include "util/errors.hpp"

using namespace kprof;

namespace {
// A child process that takes the lock, says so through a pipe, and holds it until the parent writes a byte.
struct Holder {
  pid_t pid = -1;
  int to_child = -1;
  explicit Holder(int gpu) {
    int up[2], down[2];
    EXPECT_EQ(::pipe(up), 0);
    EXPECT_EQ(::pipe(down), 0);
    pid = ::fork();
    if (pid == 0) {
      auto lock = GpuLock::acquire(gpu, false);
      char c = 'L';
      if (::write(up[1], &c, 1) != 1) ::_exit(2);
      if (::read(down[0], &c, 1) != 1) ::_exit(3);
      lock.release();
      ::_exit(0);
    }
    ::close(up[1]);
    ::close(down[0]);
    char c = 0;
    EXPECT_EQ(::read(up[0], &c, 1), 1);
    ::close(up[0]);
    to_child = down[1];
  }
  void release() {
    char c = 'R';
    EXPECT_EQ(::write(to_child, &c, 1), 1);
  }
  int wait() {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(to_child);
    return status;
  }
};
}  // namespace

TEST(GpuLock, PathFollowsLockDir) {
  clocktest::FakeSmiEnv env;
  EXPECT_EQ(gpu_lock_path(3), env.dir() / "kprof-gpu3.lock");
}

TEST(GpuLock, BusyWithoutWaitNamesTheHolder) {
  clocktest::FakeSmiEnv env;
  Holder holder(0);
  try {
    GpuLock::acquire(0, false);
    FAIL() << "lock should be busy";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitBusy);
    EXPECT_NE(std::string(e.what()).find("pid " + std::to_string(holder.pid)), std::string::npos) << e.what();
  }
  // Another GPU is free.
  EXPECT_NO_THROW(GpuLock::acquire(1, false));
  holder.release();
  int status = holder.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  auto lock = GpuLock::acquire(0, false);
  EXPECT_EQ(read_file(lock.path()), std::to_string(::getpid()) + "\n");
}

TEST(GpuLock, WaitBlocksUntilTheHolderLeaves) {
  clocktest::FakeSmiEnv env;
  Holder holder(0);
  std::string message;
  auto lock = GpuLock::acquire(0, true, [&](const std::string& m) {
    message = m;
    holder.release();  // the holder lets go only once we are waiting
  });
  EXPECT_NE(message.find("pid " + std::to_string(holder.pid)), std::string::npos) << message;
  EXPECT_NE(message.find("waiting"), std::string::npos);
  holder.wait();
}

TEST(GpuLock, ReleasedWhenTheHolderDiesWithoutCleanup) {
  clocktest::FakeSmiEnv env;
  pid_t pid = ::fork();
  if (pid == 0) {
    auto* leaked = new GpuLock(GpuLock::acquire(0, false));
    (void)leaked;
    ::_exit(0);  // no destructor: the kernel drops the flock with the process
  }
  ::waitpid(pid, nullptr, 0);
  EXPECT_NO_THROW(GpuLock::acquire(0, false));
}

TEST(GpuLock, MoveKeepsOneOwner) {
  clocktest::FakeSmiEnv env;
  auto a = GpuLock::acquire(0, false);
  GpuLock b = std::move(a);
  a.release();  // moved-from: no effect
  EXPECT_THROW(GpuLock::acquire(0, false), Error);  // b still holds it (a new open file description conflicts)
  b.release();
  EXPECT_NO_THROW(GpuLock::acquire(0, false));
}

// Issue 24: a link planted at the lock's name in a shared /tmp was followed (its target truncated, written with
// the PID and chmod'ed 0666).
TEST(GpuLock, ALinkAtTheLockPathIsRefusedNotFollowed) {
  clocktest::FakeSmiEnv env;
  const auto victim = env.dir() / "victim";
  write_file_atomic(victim, "precious\n");
  std::filesystem::permissions(victim, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::filesystem::create_symlink(victim, gpu_lock_path(0));
  EXPECT_THROW(GpuLock::acquire(0, false), Error);
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_EQ(std::filesystem::status(victim).permissions(),
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

TEST(GpuLock, AnotherUsersLockFileIsNotChmodded) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the lock file to another user";
  clocktest::FakeSmiEnv env;
  const auto path = gpu_lock_path(0);
  write_file_atomic(path, "");
  ASSERT_EQ(::chown(path.c_str(), 4242, 4242), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  { auto lock = GpuLock::acquire(0, false); }
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}
