//! Decoding of hex-valued options with an error that names the option.

/// Decodes `value` (surrounding whitespace ignored) as hex; `what` names it in the error.
pub fn decode(what: &str, value: &str) -> Result<Vec<u8>, String> {
    let value = value.trim();
    match hex::decode(value) {
        Ok(bytes) => Ok(bytes),
        Err(e) => Err(format!("{what} is not valid hex: {}", describe(e))),
    }
}

/// hex's messages, in shifr's lowercase style.
pub fn describe(e: hex::FromHexError) -> String {
    match e {
        hex::FromHexError::InvalidHexCharacter { c, index } => {
            format!("invalid character {c:?} at position {index}")
        }
        hex::FromHexError::OddLength => "odd number of hex digits".to_string(),
        hex::FromHexError::InvalidStringLength => "wrong number of hex digits".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_and_rejects() {
        assert_eq!(decode("--iv", " 00ff\n").unwrap(), vec![0, 0xff]);
        let e = decode("--iv", "0g").unwrap_err();
        assert!(e.contains("--iv is not valid hex"), "{e}");
        assert!(decode("--iv", "abc").is_err());
    }
}
