//! The opening side of a peer's AEAD, measured the way shifr's own AEAD decryption is
//! (`workload::shifr_op`): one message of the buffer length is sealed once, outside the timing
//! (again whenever the length changes), and every call copies that ciphertext into the buffer and
//! opens it in place with its tag (nonce, the 13-byte AAD, decryption, tag check). The copy is
//! counted, as on shifr's side. A tag that does not verify is an error, never a silent success.

use crate::workload::Op;
use crate::BenchError;

/// A keyed AEAD of one peer, sealing and opening whole messages in place with a separate tag.
pub(crate) trait SealOpen: Send {
    /// Encrypts `buf` in place and returns the tag.
    fn seal_message(&mut self, buf: &mut [u8]) -> Result<Vec<u8>, BenchError>;
    /// Decrypts `buf` in place and checks `tag`; an error when the tag does not verify.
    fn open_message(&mut self, buf: &mut [u8], tag: &[u8]) -> Result<(), BenchError>;
    /// The library that runs.
    fn backend(&self) -> String;
}

/// An AEAD opening one whole sealed message per call.
pub(crate) struct Open<A> {
    aead: A,
    /// A sealed message of the last buffer length and its tag.
    sealed: Option<(Vec<u8>, Vec<u8>)>,
}

impl<A: SealOpen> Open<A> {
    pub(crate) fn new(aead: A) -> Open<A> {
        Open { aead, sealed: None }
    }
}

/// The error of an open whose tag did not verify.
pub(crate) fn rejected(lib: &str) -> BenchError {
    BenchError::Invalid(format!(
        "{lib}: the sealed message did not open (tag mismatch)"
    ))
}

impl<A: SealOpen> Op for Open<A> {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let sealed = match self.sealed.take() {
            Some(s) if s.0.len() == buf.len() => s,
            _ => {
                let mut msg = buf.to_vec();
                let tag = self.aead.seal_message(&mut msg)?;
                (msg, tag)
            }
        };
        buf.copy_from_slice(&sealed.0);
        let opened = self.aead.open_message(buf, &sealed.1);
        self.sealed = Some(sealed);
        opened
    }

    fn backend(&self) -> String {
        self.aead.backend()
    }

    #[cfg(test)]
    fn sealed_mut(&mut self) -> Option<&mut (Vec<u8>, Vec<u8>)> {
        self.sealed.as_mut()
    }
}
