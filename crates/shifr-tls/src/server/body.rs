//! A response body of N bytes for hyper, sent as slices of the shared pattern (no copy, no
//! allocation per response).

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The pattern once, as shared bytes.
fn shared() -> Bytes {
    static SHARED: std::sync::OnceLock<Bytes> = std::sync::OnceLock::new();
    SHARED
        .get_or_init(|| Bytes::from_static(crate::http1::pattern()))
        .clone()
}

/// `len` bytes of the pattern.
pub struct Pattern {
    left: u64,
    chunk: Bytes,
}

impl Pattern {
    /// A body of `len` bytes.
    pub fn new(len: u64) -> Pattern {
        Pattern {
            left: len,
            chunk: shared(),
        }
    }
}

impl Body for Pattern {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if this.left == 0 {
            return Poll::Ready(None);
        }
        let n = this.left.min(this.chunk.len() as u64) as usize;
        this.left -= n as u64;
        Poll::Ready(Some(Ok(Frame::data(this.chunk.slice(..n)))))
    }

    fn is_end_stream(&self) -> bool {
        self.left == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.left)
    }
}
