//! The vector-file parser (format: `/work/shared/vectors/README.md`).
//!
//! Blocks are separated by blank lines. A block with at least one `field = value` line is a record:
//! its first line is the header `# <name> / <source>`, the other `#` lines are notes. A block with no
//! field lines (a file's preamble) is not a record and is skipped.

use crate::record::{Field, Record};

/// A malformed line, with its 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based line number of the offending line.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// Parses a whole vector file; the first malformed line makes it fail.
pub fn parse(text: &str) -> Result<Vec<Record>, ParseError> {
    parse_blocks(text).into_iter().collect()
}

/// Parses every block independently, so that one malformed record does not hide the others.
/// The result holds one entry per record-like block (preamble blocks are left out), in file order.
pub fn parse_blocks(text: &str) -> Vec<Result<Record, ParseError>> {
    let mut out = Vec::new();
    let mut block: Vec<(usize, &str)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            if !block.is_empty() {
                if let Some(r) = parse_block(&block) {
                    out.push(r);
                }
                block.clear();
            }
        } else {
            block.push((i + 1, line));
        }
    }
    if !block.is_empty() {
        if let Some(r) = parse_block(&block) {
            out.push(r);
        }
    }
    out
}

/// `None` for a block without fields (a preamble), otherwise the record or the first error.
fn parse_block(lines: &[(usize, &str)]) -> Option<Result<Record, ParseError>> {
    let mut comments = Vec::new();
    let mut fields: Vec<Field> = Vec::new();
    for &(n, line) in lines {
        if line.trim_start().starts_with('#') {
            comments.push((n, line.trim_start()));
            continue;
        }
        if let Err(e) = parse_field(n, line).map(|f| fields.push(f)) {
            return Some(Err(e));
        }
    }
    if fields.is_empty() {
        // A preamble block: every line is a comment.
        return None;
    }
    Some(build_record(lines, comments, fields))
}

fn build_record(
    lines: &[(usize, &str)],
    comments: Vec<(usize, &str)>,
    fields: Vec<Field>,
) -> Result<Record, ParseError> {
    let (first_line, first) = lines[0];
    if !first.trim_start().starts_with('#') {
        return Err(ParseError {
            line: first_line,
            message: "a record must start with a header line `# <name> / <source>`".into(),
        });
    }
    for (i, f) in fields.iter().enumerate() {
        if let Some(prev) = fields[..i].iter().find(|p| p.name == f.name) {
            return Err(ParseError {
                line: f.line,
                message: format!("field `{}` repeats (first on line {})", f.name, prev.line),
            });
        }
    }
    let header = comments[0].1.trim_start_matches('#').trim();
    if header.is_empty() {
        return Err(ParseError {
            line: first_line,
            message: "empty record header".into(),
        });
    }
    let (name, source) = match header.split_once(" / ") {
        Some((n, s)) => (n.trim(), s.trim()),
        None => (header, ""),
    };
    let notes = comments[1..]
        .iter()
        .map(|(_, c)| c.trim_start_matches('#').trim().to_string())
        .collect();
    Ok(Record {
        name: name.to_string(),
        source: source.to_string(),
        notes,
        fields,
        line: first_line,
    })
}

fn parse_field(n: usize, line: &str) -> Result<Field, ParseError> {
    let err = |message: String| ParseError { line: n, message };
    let (name, value) = line.split_once('=').ok_or_else(|| {
        err(format!(
            "expected `field = value` or a `#` line, got `{}`",
            line.trim()
        ))
    })?;
    let name = name.trim();
    if name.is_empty() {
        return Err(err("missing field name before `=`".into()));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(err(format!("invalid field name `{name}`")));
    }
    Ok(Field {
        name: name.to_string(),
        value: value.trim().to_string(),
        line: n,
    })
}
