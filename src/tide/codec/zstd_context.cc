#include "tide/codec/zstd_context.h"

#include <memory>

namespace tide {

namespace {

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* ctx) const { ZSTD_freeCCtx(ctx); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* ctx) const { ZSTD_freeDCtx(ctx); }
};

}  // namespace

ZSTD_CCtx* ThreadZstdCompressContext() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> context(ZSTD_createCCtx());
  return context.get();
}

ZSTD_DCtx* ThreadZstdDecompressContext() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> context(ZSTD_createDCtx());
  if (context == nullptr) return nullptr;
  // A stream left half-read by an earlier failure must not carry over.
  ZSTD_DCtx_reset(context.get(), ZSTD_reset_session_and_parameters);
  return context.get();
}

}  // namespace tide
