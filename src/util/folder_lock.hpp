// An exclusive lock on a folder, for a read-modify-write of a file in it (the devlog) that other processes and
// threads of this host make too (flock is not reliable on NFS: the autotune cache, which sweeps share across hosts,
// writes one file per try instead, plan/autotune_cache.hpp): write_file_atomic alone keeps each write whole, but two writers that each
// read, add their entry and write back lose one of the two entries.
#pragma once
#include <filesystem>

namespace kprof {

class FolderLock {
 public:
  // Creates `dir` when missing and takes flock(LOCK_EX) on it, waiting for the holder; throws CannotWrite (exit 9)
  // when it cannot. The folder itself is locked (not a lock file beside the data): nothing is left in a user's
  // folder, and nothing is written through a link. Each FolderLock opens the folder anew, so two threads of one
  // process exclude each other as two processes do.
  explicit FolderLock(const std::filesystem::path& dir);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace kprof
