//! The optional parts of this build (Cargo features of shifr-cli, README "Features"), and the one
//! line a command prints when it needs a part this build left out.

/// Every optional part, each with whether this build has it, in `--version` order.
pub const ALL: [(&str, bool); 3] = [
    ("peers", cfg!(feature = "peers")),
    ("gpu", cfg!(feature = "gpu")),
    ("tls", cfg!(feature = "tls")),
];

/// The error of a command that needs `feature`, which this build left out.
#[cfg(not(all(feature = "peers", feature = "gpu", feature = "tls")))]
pub fn missing(feature: &str, what: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{what}: this shifr was built without the `{feature}` feature \
         (cargo build --release -p shifr-cli --features {feature})"
    )
}

/// `shifr --version`: the version and the optional parts of this build.
pub fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        let on: Vec<&str> = ALL.iter().filter(|(_, on)| *on).map(|(f, _)| *f).collect();
        let on = if on.is_empty() {
            "none".to_string()
        } else {
            on.join(", ")
        };
        format!(
            "{} (optional features: {on}; {})",
            env!("CARGO_PKG_VERSION"),
            std::env::consts::ARCH
        )
    })
}
