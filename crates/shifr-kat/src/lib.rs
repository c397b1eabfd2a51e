//! shifr-kat: shifr's own known-answer-test runner.
//!
//! It reads the vector-file format of `/work/shared/vectors/README.md` (records of `field = value`
//! lines under a `# name / source` header) and checks every record against the shifr library:
//!
//! * every field of a record is interpreted, or the record is skipped naming the field;
//! * both directions are checked wherever they exist (encrypt and decrypt, seal and open, MAC
//!   computation and verification), and intermediate values (round keys, traces, ChaCha states,
//!   GCM `h`/`y0`, MGM `y1`/`z1`, ACPKM section keys) are compared too;
//! * a record marked `result = invalid` passes only if the library rejects it.
//!
//! The library's default backend is used; `SHIFR_BACKEND=portable` forces the portable one (the
//! library reads the variable itself).
//!
//! Interpretation of fields beyond the vector README:
//! * `gost28147` records use the CryptoPro-A S-boxes with the GOST R 34.12-2015 (Magma) byte order,
//!   unless a note says "little-endian" (then the RFC 5830 / OpenSSL gost89 order); see `ciphers.rs`.
//! * `ctr`: an `iv` of n bytes is the full initial counter block (SP 800-38A), one of n/2 bytes the
//!   GOST R 34.13 IV. GOST `ofb`/`ctr` with `s < n` take `MSB_s` of each gamma block; `ctr-acpkm` with `s` other than n is skipped (no truncated
//!   gamma); sizes in bits that are not whole bytes (CFB1) are skipped.
//! * `cmac` and `mac` are the same OMAC1 check; `r`, `k1`, `k2` are E(0^n) and the two subkeys.
//! * ChaCha-family `counter` defaults to 0; XChaCha20 states are those of the ChaCha20 block keyed
//!   with the HChaCha20 subkey; valid records with the original 64-bit ChaCha20 nonce are skipped.
//! * GCM tags of 12 to 16 bytes are checked; shorter ones (SP 800-38D Appendix C) are skipped on
//!   valid records because shifr refuses them.
//!
//! A record is also skipped when it has a field its check does not interpret, when `result =
//! invalid` has no meaning for its mode (tables, transforms, key schedules, quarter rounds), or when
//! it holds no expected value at all.

mod aead;
mod block;
mod chacha;
mod ciphers;
mod ctx;
mod dispatch;
mod keyschedule;
mod mac;
mod modes;
mod names;
mod outcome;
mod parse;
mod record;
mod tables;
mod transforms;

use std::panic::{catch_unwind, AssertUnwindSafe};

pub use outcome::{Outcome, Summary};
pub use parse::{parse, parse_blocks, ParseError};
pub use record::{Field, Record};

use ctx::{Ctx, Step, Stop};
use names::Name;

/// Checks one record. Never panics: a panic inside the library is reported as a failure.
pub fn check(record: &Record) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| check_record(record))) {
        Ok(outcome) => outcome,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Outcome::Fail(format!("panicked: {msg}"))
        }
    }
}

fn check_record(record: &Record) -> Outcome {
    let ctx = match Ctx::new(record) {
        Ok(ctx) => ctx,
        Err(stop) => return stop_outcome(stop),
    };
    match run_plan(&ctx) {
        Err(stop) => stop_outcome(stop),
        Ok(()) => {
            if let Some(field) = ctx.first_unread() {
                Outcome::Skip(format!("field `{field}` was not checked"))
            } else if ctx.compared() == 0 {
                Outcome::Skip("the record holds no expected value to check".into())
            } else {
                Outcome::Pass
            }
        }
    }
}

fn run_plan(ctx: &Ctx) -> Step {
    let cipher = ctx.text("cipher")?;
    let mode = ctx.text("mode")?;
    let Some(name) = Name::parse(cipher) else {
        return ctx::skip(format!("unknown cipher `{cipher}`"));
    };
    let plan = dispatch::plan_for(name, cipher, mode)?;
    if let Some(field) = dispatch::foreign_field(ctx, &plan) {
        return ctx::skip(format!(
            "field `{field}` is not understood for {cipher} {mode}"
        ));
    }
    if ctx.invalid() && !plan.rejects {
        return ctx::skip(format!(
            "`result = invalid` has no meaning for mode `{mode}` (nothing can be rejected)"
        ));
    }
    (plan.run)(ctx, name)
}

fn stop_outcome(stop: Stop) -> Outcome {
    match stop {
        Stop::Fail(why) => Outcome::Fail(why),
        Stop::Skip(why) => Outcome::Skip(why),
    }
}

/// Parses `text` and checks every record, in file order. A malformed record becomes a failure
/// named after its line (`line N`) and does not stop the others.
pub fn run_text(text: &str) -> Vec<(String, Outcome)> {
    parse_blocks(text)
        .into_iter()
        .map(|r| match r {
            Ok(record) => {
                let outcome = check(&record);
                (record.name, outcome)
            }
            Err(e) => (
                format!("line {}", e.line),
                Outcome::Fail(format!("parse error: {}", e.message)),
            ),
        })
        .collect()
}

/// Reads and checks one vector file (see [`run_text`]).
pub fn run_file(path: impl AsRef<std::path::Path>) -> std::io::Result<Vec<(String, Outcome)>> {
    Ok(run_text(&std::fs::read_to_string(path)?))
}
