//! `shifr list`: the catalogue as a table.

use anyhow::Result;
use shifr::catalog::{self, AlgInfo, IvSpec, Padding};
use std::io::Write;
use std::process::ExitCode;

pub fn run() -> Result<ExitCode> {
    let header = [
        "NAME",
        "KIND",
        "KEY",
        "IV",
        "TAG",
        "PADDING",
        "BACKEND",
        "DESCRIPTION",
    ]
    .map(String::from);
    let rows: Vec<[String; 8]> = catalog::all().iter().map(row).collect();
    let mut widths = [0usize; 7];
    for r in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    for r in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter().zip(r) {
            out.push_str(&format!("{cell:<w$}  "));
        }
        out.push_str(&r[7]);
        out.push('\n');
    }
    out.push_str(
        "\nSizes in bytes. IV n*z: a GOST R 34.13 register of z blocks (z = 1 is what OpenSSL uses).\n",
    );
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

fn row(a: &AlgInfo) -> [String; 8] {
    let iv = match a.iv {
        IvSpec::None => "-".to_string(),
        IvSpec::Exact(n) => n.to_string(),
        IvSpec::MultipleOf(n) => format!("{n}*z"),
        IvSpec::AtLeast(n) => format!("{} ({n}+)", a.iv.default_len()),
    };
    let tag = match a.tag {
        None => "-".to_string(),
        Some(t) if t.min == t.max => t.default.to_string(),
        Some(t) => format!("{} ({}-{})", t.default, t.min, t.max),
    };
    let padding = match a.padding {
        Padding::Pkcs7 => "pkcs7".to_string(),
        Padding::None => "-".to_string(),
    };
    let mut description = a.description.to_string();
    if let Some(s) = a.section {
        description.push_str(&format!("; section {s} bytes"));
    }
    [
        a.name.to_string(),
        a.kind.name().to_string(),
        a.key_len.to_string(),
        iv,
        tag,
        padding,
        format!("cpu ({})", a.implementation()),
        description,
    ]
}
