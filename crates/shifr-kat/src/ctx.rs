//! Reading one record while it is checked: typed field readers that remember which fields were
//! interpreted, and the comparison helpers every family uses.
//!
//! A check stops at the first problem with a [`Stop`]: `Fail` for a disagreeing value, a malformed
//! field or a library error on a valid record; `Skip` for something this runner cannot interpret.

use std::cell::{Cell, RefCell};

use crate::record::Record;

/// Why a check stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    Fail(String),
    Skip(String),
}

/// The result of one check step.
pub(crate) type Step<T = ()> = Result<T, Stop>;

pub(crate) fn fail<T>(why: impl Into<String>) -> Step<T> {
    Err(Stop::Fail(why.into()))
}

pub(crate) fn skip<T>(why: impl Into<String>) -> Step<T> {
    Err(Stop::Skip(why.into()))
}

/// Turns a library error on a valid record into a failure naming the operation.
pub(crate) fn lib<T>(what: &str, r: shifr::Result<T>) -> Step<T> {
    r.map_err(|e| Stop::Fail(format!("{what}: {e}")))
}

/// One record under check.
pub(crate) struct Ctx<'a> {
    record: &'a Record,
    used: RefCell<Vec<bool>>,
    compared: Cell<usize>,
    invalid: bool,
}

impl<'a> Ctx<'a> {
    /// Wraps a record; reads its `result` field (valid when absent).
    pub(crate) fn new(record: &'a Record) -> Step<Ctx<'a>> {
        let mut ctx = Ctx {
            record,
            used: RefCell::new(vec![false; record.fields.len()]),
            compared: Cell::new(0),
            invalid: false,
        };
        ctx.invalid = match ctx.opt_text("result") {
            None | Some("valid") => false,
            Some("invalid") => true,
            Some(other) => return skip(format!("field `result`: unknown value `{other}`")),
        };
        Ok(ctx)
    }

    /// The record being checked.
    pub(crate) fn record(&self) -> &'a Record {
        self.record
    }

    /// Whether the record is marked `result = invalid` (it must be rejected).
    pub(crate) fn invalid(&self) -> bool {
        self.invalid
    }

    /// Whether the record has field `name` (does not count as reading it).
    pub(crate) fn has(&self, name: &str) -> bool {
        self.record.fields.iter().any(|f| f.name == name)
    }

    /// The raw value of an optional field, marking it read.
    pub(crate) fn opt_text(&self, name: &str) -> Option<&'a str> {
        let i = self.record.fields.iter().position(|f| f.name == name)?;
        self.used.borrow_mut()[i] = true;
        Some(self.record.fields[i].value.as_str())
    }

    /// The raw value of a required field.
    pub(crate) fn text(&self, name: &str) -> Step<&'a str> {
        match self.opt_text(name) {
            Some(v) => Ok(v),
            None => fail(format!("missing field `{name}`")),
        }
    }

    /// An optional hex byte-string field (either case; empty value = empty string).
    pub(crate) fn opt_hex(&self, name: &str) -> Step<Option<Vec<u8>>> {
        self.opt_text(name)
            .map(|v| decode_hex(v).map_err(|why| Stop::Fail(format!("field `{name}`: {why}"))))
            .transpose()
    }

    /// A required hex byte-string field.
    pub(crate) fn hex(&self, name: &str) -> Step<Vec<u8>> {
        match self.opt_hex(name)? {
            Some(v) => Ok(v),
            None => fail(format!("missing field `{name}`")),
        }
    }

    /// A required hex field of exactly `N` bytes.
    pub(crate) fn hex_array<const N: usize>(&self, name: &str) -> Step<[u8; N]> {
        let v = self.hex(name)?;
        v.as_slice()
            .try_into()
            .or_else(|_| fail(format!("field `{name}`: {} bytes, expected {N}", v.len())))
    }

    /// A required field of big-endian 32-bit words printed as hex (8 digits per word).
    pub(crate) fn words(&self, name: &str) -> Step<Vec<u32>> {
        let v = self.hex(name)?;
        if v.len() % 4 != 0 {
            return fail(format!(
                "field `{name}`: {} bytes is not a whole number of 32-bit words",
                v.len()
            ));
        }
        Ok(v.chunks_exact(4)
            .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
            .collect())
    }

    /// An optional unsigned decimal field.
    pub(crate) fn opt_dec(&self, name: &str) -> Step<Option<u64>> {
        self.opt_text(name)
            .map(|v| {
                if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                    return fail(format!("field `{name}`: `{v}` is not a decimal number"));
                }
                v.parse::<u64>()
                    .or_else(|_| fail(format!("field `{name}`: `{v}` is out of range")))
            })
            .transpose()
    }

    /// An optional size in bits (decimal), as whole bytes; a size that is not whole bytes is a skip.
    pub(crate) fn opt_bytes_of_bits(&self, name: &str) -> Step<Option<usize>> {
        let Some(bits) = self.opt_dec(name)? else {
            return Ok(None);
        };
        if bits % 8 != 0 {
            return skip(format!(
                "field `{name}` = {bits}: sizes that are not whole bytes are not supported"
            ));
        }
        match usize::try_from(bits / 8) {
            Ok(b) => Ok(Some(b)),
            Err(_) => fail(format!("field `{name}` = {bits} is too large")),
        }
    }

    /// A required size in bits, as whole bytes.
    pub(crate) fn bytes_of_bits(&self, name: &str) -> Step<usize> {
        match self.opt_bytes_of_bits(name)? {
            Some(v) => Ok(v),
            None => fail(format!("missing field `{name}`")),
        }
    }

    /// Names of the fields `<prefix><decimal index>` (e.g. `k01`, `sectionkey2`), with their
    /// indices, in file order. Reading them is left to the caller.
    pub(crate) fn indexed(&self, prefix: &str) -> Vec<(usize, &'a str)> {
        self.record
            .fields
            .iter()
            .filter_map(|f| Some((field_index(&f.name, prefix)?, f.name.as_str())))
            .collect()
    }

    /// Compares `got` with the expected bytes of field `name` (required).
    pub(crate) fn expect(&self, name: &str, got: &[u8]) -> Step {
        let want = self.hex(name)?;
        self.same(name, &want, got)
    }

    /// If the record has field `name`, computes the value and compares it.
    pub(crate) fn expect_if(&self, name: &str, compute: impl FnOnce() -> Step<Vec<u8>>) -> Step {
        if self.has(name) {
            let got = compute()?;
            self.expect(name, &got)?;
        }
        Ok(())
    }

    /// Compares an expected and a computed value; `what` names the check in a failure.
    pub(crate) fn same(&self, what: &str, want: &[u8], got: &[u8]) -> Step {
        self.compared.set(self.compared.get() + 1);
        if want == got {
            return Ok(());
        }
        let at = want
            .iter()
            .zip(got)
            .position(|(a, b)| a != b)
            .unwrap_or(want.len().min(got.len()));
        fail(format!(
            "{what}: expected {}, got {} (first difference at byte {at})",
            show(want),
            show(got)
        ))
    }

    /// For `result = invalid`: passes only if the operation was rejected.
    pub(crate) fn rejected<T>(&self, what: &str, r: shifr::Result<T>) -> Step {
        self.compared.set(self.compared.get() + 1);
        match r {
            Err(_) => Ok(()),
            Ok(_) => fail(format!(
                "{what} accepted a record marked `result = invalid`"
            )),
        }
    }

    /// The first field no check has read, if any.
    pub(crate) fn first_unread(&self) -> Option<&'a str> {
        let used = self.used.borrow();
        self.record
            .fields
            .iter()
            .zip(used.iter())
            .find(|(_, &u)| !u)
            .map(|(f, _)| f.name.as_str())
    }

    /// How many expected values were compared (or rejections observed).
    pub(crate) fn compared(&self) -> usize {
        self.compared.get()
    }
}

/// `Some(i)` when `name` is `prefix` followed by 1 to 3 decimal digits.
pub(crate) fn field_index(name: &str, prefix: &str) -> Option<usize> {
    let digits = name.strip_prefix(prefix)?;
    if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Decodes hex of either case; the error says what is wrong.
pub(crate) fn decode_hex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits ({})", s.len()));
    }
    let nibble = |c: u8| -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    };
    s.as_bytes()
        .chunks_exact(2)
        .enumerate()
        .map(|(i, p)| match (nibble(p[0]), nibble(p[1])) {
            (Some(h), Some(l)) => Ok(h << 4 | l),
            _ => Err(format!("not hex at position {}", 2 * i)),
        })
        .collect()
}

/// Lowercase hex, shortened for messages.
pub(crate) fn show(b: &[u8]) -> String {
    const MAX: usize = 24;
    let hex: String = b.iter().take(MAX).map(|x| format!("{x:02x}")).collect();
    if b.len() > MAX {
        format!("{hex}... ({} bytes)", b.len())
    } else if b.is_empty() {
        "(empty)".into()
    } else {
        hex
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_of_either_case_and_errors() {
        assert_eq!(decode_hex("00fFaB").unwrap(), [0x00, 0xff, 0xab]);
        assert_eq!(decode_hex("").unwrap(), Vec::<u8>::new());
        assert!(decode_hex("abc").unwrap_err().contains("odd"));
        assert!(decode_hex("0g").unwrap_err().contains("position 0"));
        assert!(decode_hex("00é").is_err());
        assert!(decode_hex("0 ").is_err());
    }

    #[test]
    fn indexed_field_names() {
        assert_eq!(field_index("k01", "k"), Some(1));
        assert_eq!(field_index("k32", "k"), Some(32));
        assert_eq!(field_index("sectionkey2", "sectionkey"), Some(2));
        assert_eq!(field_index("key", "k"), None);
        assert_eq!(field_index("k", "k"), None);
        assert_eq!(field_index("k1234", "k"), None);
        assert_eq!(field_index("lsx3", "k"), None);
    }

    #[test]
    fn shown_values_are_shortened() {
        assert_eq!(show(&[]), "(empty)");
        assert_eq!(show(&[0xab, 0x01]), "ab01");
        assert!(show(&[0u8; 40]).ends_with("... (40 bytes)"));
    }
}
