//! `shifr study` end to end on the tiny configuration: every study writes its report, CSV and PNG
//! files, runs its portable-backend child where it has one, and prints its verdicts; bad arguments get
//! one error line. No timing is checked.

mod support;

use support::{one_clean_line, shifr, temp_path};

const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

fn run_study(name: &str, extra: &[&str]) -> std::path::PathBuf {
    let out = temp_path(&format!("study-{name}"));
    let out_s = out.to_str().unwrap().to_string();
    let mut args = vec!["study", name, "--tiny", "--out", &out_s, "--threads", "2"];
    args.extend_from_slice(extra);
    let stdout = shifr(&args, b"", &[]).expect_ok(name);
    let stdout = String::from_utf8(stdout).unwrap();
    assert!(stdout.contains("report.md"), "{stdout}");
    // Verdicts, or on a busy machine every one withheld, with how to rerun.
    let busy = stdout.contains("not judged: the machine was busy");
    assert!(
        stdout.contains("holds") || stdout.contains("cannot be tested") || busy,
        "{stdout}"
    );
    if busy {
        assert!(!stdout.contains("holds"), "{stdout}");
        assert!(stdout.contains("Rerun"), "{stdout}");
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Verdict") && report.contains("Seed's conclusion"));
    let mut pngs = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        match path.extension().and_then(|e| e.to_str()) {
            Some("png") => {
                pngs += 1;
                assert!(
                    std::fs::read(&path).unwrap().starts_with(PNG_MAGIC),
                    "{path:?}"
                );
            }
            Some("csv") => {
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(text.lines().count() > 1, "{path:?}");
            }
            _ => {}
        }
    }
    assert!(pngs >= 2, "{pngs} PNG files");
    assert!(
        !out.join(".part-portable").exists(),
        "child scratch left behind"
    );
    out
}

#[test]
fn tls_table_measures_its_three_setups() {
    let out = run_study("tls-table", &[]);
    let csv = std::fs::read_to_string(out.join("tls-table.csv")).unwrap();
    // The child ran under SHIFR_BACKEND=portable: ChaCha20 too is portable in the software half.
    assert!(csv.contains("chacha20 portable + poly1305"), "{csv}");
    // The best-backend half: AES on a hardware backend wherever the CPU has one.
    let best: Vec<&str> = csv
        .lines()
        .filter(|l| l.starts_with("this machine (best backend)") && l.contains(",AES-"))
        .collect();
    assert_eq!(best.len(), 4, "{csv}");
    use shifr::cpu::Backend;
    if Backend::AesNi.is_supported() {
        assert!(best.iter().all(|l| !l.contains("aes portable")), "{csv}");
    }
    // The AES-NI-era emulation: AES on AES-NI, ChaCha20 no wider than AVX2, labelled as such.
    if Backend::AesNi.is_supported() && Backend::Avx2.is_supported() {
        let era: Vec<&str> = csv
            .lines()
            .filter(|l| l.starts_with("this machine (AES-NI era"))
            .collect();
        assert!(
            era.iter().any(|l| l.contains("chacha20 avx2 + poly1305")),
            "{csv}"
        );
        assert!(
            era.iter()
                .filter(|l| l.contains(",AES-"))
                .all(|l| l.contains("aes aesni")),
            "{csv}"
        );
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn files_study() {
    let out = run_study("files", &[]);
    assert!(out.join("figure5-watts-decrypt.png").exists());
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn gost_streams_study_with_a_portable_child() {
    let out = run_study("gost-streams", &["--backend", "portable"]);
    let csv = std::fs::read_to_string(out.join("gost-streams.csv")).unwrap();
    assert!(csv.contains("SHIFR_BACKEND=portable"), "{csv}");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn kuznyechik_platforms_study() {
    let out = run_study("kuznyechik-platforms", &[]);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("4K UHQ video conference"), "{report}");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn bad_study_arguments_get_one_line() {
    let out = temp_path("study-bad");
    let out_s = out.to_str().unwrap();
    for args in [
        vec!["study", "nope", "--out", out_s],
        vec!["study", "tls-table", "--out", out_s, "--backend", "bogus"],
        vec!["study", "gost-streams", "--out", out_s, "--threads", "0"],
    ] {
        let run = shifr(&args, b"", &[]);
        assert_ne!(run.code, Some(0), "{args:?}");
        assert!(run.stdout.is_empty(), "{args:?}");
        assert!(one_clean_line(&run.stderr), "{args:?}: {}", run.stderr);
    }
}
