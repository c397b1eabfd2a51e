//! Every study on its tiny configuration, in-process (no child runs): it writes report.md with the
//! seed's conclusion and a verdict per claim, CSV files with the expected header, and valid PNG files.
//! No timing is checked.

use shifr_studies::{self as study, Config, Scale, Study};
use std::path::PathBuf;

const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

fn tiny(study: Study) -> (PathBuf, study::Outcome) {
    let out = std::env::temp_dir().join(format!(
        "shifr-study-{}-{}",
        study.name(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&out);
    let mut cfg = Config::new(&out);
    cfg.scale = Scale::Tiny;
    cfg.max_threads = 2;
    cfg.progress = false;
    cfg.command = format!("test {}", study.name());
    let outcome = study::run(study, &cfg).unwrap_or_else(|e| panic!("{}: {e}", study.name()));
    (out, outcome)
}

fn check(study: Study, csv_name: &str, header: &str, pngs: &[&str]) {
    let (out, outcome) = tiny(study);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.starts_with("# "), "{report}");
    assert!(report.contains("## Verdict"), "{report}");
    assert!(report.contains("Seed's conclusion"), "{report}");
    assert!(!outcome.verdicts.is_empty());
    for v in &outcome.verdicts {
        assert!(report.contains(&v.claim), "verdict missing: {}", v.claim);
        assert!(report.contains(&v.outcome.words()));
    }
    let csv = std::fs::read_to_string(out.join(csv_name)).unwrap();
    assert_eq!(csv.lines().next(), Some(header));
    assert!(csv.lines().count() > 2, "{csv}");
    let columns = header.split(',').count();
    for line in csv.lines().filter(|l| !l.contains('"')) {
        assert_eq!(line.split(',').count(), columns, "{line}");
    }
    for png in pngs {
        let bytes = std::fs::read(out.join(png)).unwrap_or_else(|e| panic!("{png}: {e}"));
        assert!(bytes.starts_with(PNG_MAGIC), "{png} is not a PNG");
        assert!(
            report.contains(&format!("]({png})")),
            "{png} not linked from the report"
        );
    }
    assert!(outcome.files.iter().all(|f| f.exists()));
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn tls_table() {
    check(
        Study::TlsTable,
        "tls-table.csv",
        "source,platform,hardware_aes,cipher,implementation,mb_s,mb_s_min,mb_s_max,cpu_percent",
        &["tls-aes-ni.png", "tls-software.png"],
    );
}

#[test]
fn files() {
    check(
        Study::Files,
        "files.csv",
        "algorithm,implementation,file,kind,bytes,direction,seconds,bytes_per_s,cpu_percent,joules,watts",
        &[
            "figure1-speed.png",
            "figure2-cpu-encrypt.png",
            "figure3-cpu-decrypt.png",
            "figure4-watts-encrypt.png",
            "figure5-watts-decrypt.png",
        ],
    );
}

#[test]
fn gost_streams() {
    check(
        Study::GostStreams,
        "gost-streams.csv",
        "source,workload,implementation,threads,streams,mb_s,mb_s_min,mb_s_max,mb_s_per_stream,cpu_percent",
        &["gost-threads.png", "gost-per-core.png"],
    );
}

#[test]
fn kuznyechik_platforms() {
    check(
        Study::KuznyechikPlatforms,
        "kuznyechik-platforms.csv",
        "source,platform,cipher,implementation,threads,mb_s,mb_s_per_thread,watts,mb_s_per_watt,cpu_percent",
        &["kuznyechik-per-thread.png", "kuznyechik-per-watt.png", "kuznyechik-threads.png"],
    );
}

#[test]
fn the_files_study_reads_a_user_corpus() {
    let corpus = std::env::temp_dir().join(format!("shifr-user-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(corpus.join("one.bin"), vec![1u8; 300]).unwrap();
    std::fs::write(corpus.join("two.bin"), vec![2u8; 5000]).unwrap();
    let out = corpus.join("out");
    let mut cfg = Config::new(&out);
    cfg.scale = Scale::Tiny;
    cfg.progress = false;
    cfg.corpus = Some(corpus.clone());
    study::run(Study::Files, &cfg).unwrap();
    let csv = std::fs::read_to_string(out.join("files.csv")).unwrap();
    // 5 algorithms x 2 files x 2 directions.
    assert_eq!(csv.lines().count(), 1 + 5 * 2 * 2);
    assert!(csv.contains(",one.bin,other,300,"));
    std::fs::remove_dir_all(&corpus).unwrap();
}
