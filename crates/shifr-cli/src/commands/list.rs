//! `shifr list`: the catalogue as a table; `--memory`: what each algorithm holds in memory.

use crate::cli::ListArgs;
use anyhow::{bail, Context, Result};
use shifr::catalog::{self, AlgInfo, IvSpec, Padding};
use shifr::cpu::{self, Backend, Work};
use std::io::Write;
use std::process::ExitCode;

pub fn run(args: &ListArgs) -> Result<ExitCode> {
    if args.memory {
        return memory(args.alg.as_deref());
    }
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
    let mut out = columns(&header, &rows);
    out.push_str(
        "\nSizes in bytes. IV n*z: a GOST R 34.13 register of z blocks (z = 1 is what OpenSSL uses).\n",
    );
    out.push_str(&backend_plans());
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The backend each primitive's keys take on this CPU, for each kind of work it distinguishes,
/// and why (forced, calibrated, the table of this micro-architecture, or the preference order).
fn backend_plans() -> String {
    let mut out = format!(
        "\nBackend choice on this CPU ({}; {}). Calibration: {}.\n",
        cpu::microarch().name(),
        cpu::calibration::signature(),
        crate::tune_state::state().describe()
    );
    let header = ["PRIMITIVE", "BULK", "SHORT CALLS", "CHAIN", "WHY"].map(String::from);
    let rows: Vec<[String; 5]> = cpu::plans()
        .into_iter()
        .map(|(primitive, plan)| {
            let uses = |w: Work| primitive.works().contains(&w);
            let short = if uses(Work::Short) && plan.short_max > 0 && plan.short != plan.bulk {
                format!("{} <= {} B", plan.short.name(), plan.short_max)
            } else {
                "as bulk".into()
            };
            let chain = if uses(Work::Chain) {
                plan.chain.name().to_string()
            } else {
                "as bulk".into()
            };
            [
                primitive.name().to_string(),
                plan.bulk.name().to_string(),
                short,
                chain,
                plan.reason.describe(),
            ]
        })
        .collect();
    out.push_str(&columns(&header, &rows));
    out
}

/// `header` and `rows` as aligned columns, two spaces apart; the last column is not padded.
fn columns<const N: usize>(header: &[String; N], rows: &[[String; N]]) -> String {
    let mut widths = [0usize; N];
    for r in std::iter::once(header).chain(rows) {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    for r in std::iter::once(header).chain(rows) {
        for (w, cell) in widths.iter().zip(r).take(N - 1) {
            out.push_str(&format!("{cell:<w$}  "));
        }
        out.push_str(&r[N - 1]);
        out.push('\n');
    }
    out
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

/// `shifr list --memory`: for every algorithm, the key state per backend this CPU offers it on
/// (from the library, exact) and the peak RSS of a child `shifr bench` of that algorithm alone on
/// the backend this process selects.
fn memory(only: Option<&str>) -> Result<ExitCode> {
    let algs: Vec<&'static AlgInfo> = match only {
        None => catalog::all().iter().collect(),
        Some(list) => list
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|name| catalog::lookup(name.trim()))
            .collect::<Result<_, _>>()?,
    };
    let exe = std::env::current_exe().context("cannot locate the shifr binary for child runs")?;
    let header = ["NAME", "BACKEND", "KEY STATE (B)", "PEAK RSS (KiB)"].map(String::from);
    let mut rows: Vec<[String; 4]> = Vec::new();
    for alg in algs {
        let (default_bytes, default_backend) = shifr_bench::workload::state_bytes(alg, None)
            .with_context(|| format!("{}: key state", alg.name))?;
        let rss = peak_rss(&exe, alg.name)?;
        rows.push([
            alg.name.to_string(),
            default_backend.clone(),
            default_bytes.to_string(),
            rss.to_string(),
        ]);
        let mut seen = vec![default_backend];
        for b in Backend::ALL.iter().filter(|b| b.is_supported()) {
            let Ok((bytes, name)) = shifr_bench::workload::state_bytes(alg, Some(*b)) else {
                continue;
            };
            if name == b.name() && !seen.contains(&name) {
                rows.push([String::new(), name.clone(), bytes.to_string(), "-".into()]);
                seen.push(name);
            }
        }
    }
    let mut widths = [0usize; 4];
    for r in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    for r in std::iter::once(&header).chain(&rows) {
        let line = format!(
            "{:<w0$}  {:<w1$}  {:>w2$}  {:>w3$}",
            r[0],
            r[1],
            r[2],
            r[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3]
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str(
        "\nKEY STATE: bytes of round keys and per-key tables one keyed instance holds, inline and on \
         the heap (static tables shared by all instances not counted), on each backend this CPU offers \
         the algorithm on; the first line of each algorithm is the backend this process selects. \
         PEAK RSS: the peak resident memory of `shifr bench --alg NAME --peers none --size 16K` in a \
         process of its own on the selected backend, the whole shifr binary included.\n",
    );
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Peak RSS, KiB, of a short `shifr bench` of `alg` alone (no peers) in a child process.
fn peak_rss(exe: &std::path::Path, alg: &str) -> Result<u64> {
    let mut cmd = std::process::Command::new(exe);
    cmd.args([
        "bench",
        "--alg",
        alg,
        "--peers",
        "none",
        "--size",
        "16K",
        "--seconds",
        "0.01",
        "--json",
    ]);
    let run = shifr_bench::rusage::run_measuring_rss(&mut cmd)
        .with_context(|| format!("{alg}: running {}", exe.display()))?;
    if run.code != Some(0) {
        bail!(
            "{alg}: the child bench failed: {}",
            String::from_utf8_lossy(&run.stderr).trim()
        );
    }
    Ok(run.peak_rss_kib)
}
