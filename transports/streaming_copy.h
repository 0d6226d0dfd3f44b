// Copies in host memory with streaming (non-temporal) stores: each line goes straight to memory,
// without the read of its old contents that a cached store makes first (read for ownership),
// and without taking it from a core that holds it. Used where that read is the cost: slots a
// peer on another core reads (shm/slot_stores.h), outputs larger than the caches (shm), and the
// roofline's loops (harness/roofline.h), which must allow arlab's own stores.
//
// Measured on the build VM (one core, buffers of the same size, best of five): 64 MiB 11.7 GB/s
// streaming against memcpy's 5.9; 4 MiB 16.7 against 13.3; 1 MiB 20.3 against 24.2; 256 KiB
// 20.3 against 36.7. So streaming stores pay where the destination is not in the caches and
// would not stay there, and lose where it is.
#pragma once

#include <cstddef>

namespace arlab {

// Streaming stores where the CPU has them (SSE2 on x86-64), else memcpy. Ends with a store
// fence, so a flag released after it is seen after the data.
void copy_streaming(void* dst, const void* src, size_t bytes);

}  // namespace arlab
