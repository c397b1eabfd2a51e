//! JSON: an array of row objects (see [`crate::run::Row`] for the fields; absent numbers are null).

use crate::run::Row;

/// The rows as a pretty-printed JSON array.
pub fn render(rows: &[Row]) -> String {
    // Serialising plain structs of strings and numbers cannot fail; non-finite floats become null.
    serde_json::to_string_pretty(rows).unwrap_or_else(|_| "[]".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::tests::sample_rows;

    #[test]
    fn array_of_objects_with_the_documented_fields() {
        let v: serde_json::Value = serde_json::from_str(&render(&sample_rows())).unwrap();
        let rows = v.as_array().unwrap();
        assert_eq!(rows.len(), 2);
        for key in [
            "implementation",
            "algorithm",
            "backend",
            "bytes",
            "threads",
            "streams",
            "mb_s",
            "mb_s_min",
            "mb_s_max",
            "cycles_per_byte",
            "cycles_source",
            "cpu_percent",
            "joules_per_gb",
            "ratio_vs_shifr",
        ] {
            assert!(rows[0].get(key).is_some(), "missing {key}");
        }
        assert!(rows[0]["joules_per_gb"].is_null());
        assert!(rows[1]["ratio_vs_shifr"].is_number());
        let back: Vec<Row> = serde_json::from_value(v).unwrap();
        assert_eq!(back, sample_rows());
    }
}
