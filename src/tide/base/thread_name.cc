#include "tide/base/thread_name.h"

#include <pthread.h>

#include <algorithm>
#include <string>

namespace tide {

void SetCurrentThreadName(std::string_view name) {
  // The kernel's limit: 16 bytes with the terminating NUL.
  const std::string cut(name.substr(0, std::min<size_t>(name.size(), 15)));
  (void)::pthread_setname_np(::pthread_self(), cut.c_str());
}

}  // namespace tide
