//! Rotating message buffers.
//!
//! Timing the same buffer over and over measures a message that sits in L1 cache, which no real
//! application sends: a 16-byte message then costs only the cipher's arithmetic. A [`BufferPool`]
//! instead holds many copies of the message spread over about [`FOOTPRINT`] bytes and hands them out
//! in turn, so that each message comes from L2 at best, as a message freshly received or read would.
//! Buffers start at different offsets modulo 4 KiB so that they do not all fall into one cache set.

/// Approximate bytes a pool spans (larger than any L1 data cache, within a core's L2).
pub const FOOTPRINT: usize = 1 << 20;

/// Message buffers used in rotation.
pub struct BufferPool {
    storage: Vec<u8>,
    len: usize,
    stride: usize,
    count: usize,
    next: usize,
}

impl BufferPool {
    /// A pool of buffers of `len` bytes, filled with pseudo-random bytes.
    pub fn new(len: usize) -> BufferPool {
        // Round to cache lines and add one line, so consecutive buffers shift their cache-set index.
        let stride = len.div_ceil(64) * 64 + 64;
        let count = (FOOTPRINT / stride).clamp(2, 16384);
        let mut storage = vec![0u8; stride * count];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for b in storage.iter_mut() {
            // xorshift64: fills the buffers with bytes that no compression or zero-page trick helps.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *b = state as u8;
        }
        BufferPool {
            storage,
            len,
            stride,
            count,
            next: 0,
        }
    }

    /// How many buffers rotate.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The next buffer in rotation.
    pub fn next_buffer(&mut self) -> &mut [u8] {
        let start = self.next * self.stride;
        self.next = (self.next + 1) % self.count;
        &mut self.storage[start..start + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_rotate_and_have_the_message_length() {
        let mut pool = BufferPool::new(16);
        assert!(
            pool.count() * 16 >= 64 * 1024,
            "small messages span more than L1"
        );
        let first = pool.next_buffer().as_ptr() as usize;
        let second = pool.next_buffer().as_ptr() as usize;
        assert_ne!(first, second);
        assert_eq!(pool.next_buffer().len(), 16);
        for _ in 0..pool.count() - 3 {
            pool.next_buffer();
        }
        assert_eq!(pool.next_buffer().as_ptr() as usize, first);
    }

    #[test]
    fn large_messages_still_rotate() {
        let mut pool = BufferPool::new(1 << 20);
        assert_eq!(pool.count(), 2);
        assert_eq!(pool.next_buffer().len(), 1 << 20);
    }
}
