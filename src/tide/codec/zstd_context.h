// ZstdThreadContexts: one zstd compression and one decompression context per thread, reused by every
// caller on that thread (Parquet pages, Avro blocks) and freed when the thread ends.
//
// Why: a context allocates and clears its match tables on first use; a writer that makes a new context
// per file (or zstd's one-shot ZSTD_compress, which makes one per call) pays that for every small file
// and manifest, which was most of the CPU of a commit round's flushes. A reused context only resets
// the tables its next input needs.
// Thread-safety: each thread gets its own contexts; a context is used by one call at a time on its
// thread (the callers do not nest compressions).
#pragma once

#include <zstd.h>

namespace tide {

// The calling thread's compression context (parameters are set per call by ZSTD_compressCCtx); null
// only if zstd cannot allocate one.
ZSTD_CCtx* ThreadZstdCompressContext();
// The calling thread's decompression context, reset (session and parameters) before it is returned, so
// nothing of an earlier call carries over. Null only if zstd cannot allocate one.
ZSTD_DCtx* ThreadZstdDecompressContext();

}  // namespace tide
