//! The record model: one known-answer vector as read from a vector file.

/// One `field = value` line of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The field name (left of `=`), trimmed.
    pub name: String,
    /// The value (right of `=`), trimmed; empty for `pt =`.
    pub value: String,
    /// 1-based line number in the source text.
    pub line: usize,
}

/// One vector record: its header, notes and fields in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The record name (header text before ` / `).
    pub name: String,
    /// Where the values come from (header text after ` / `; empty if the header has none).
    pub source: String,
    /// The `#   note` lines, without the leading `#` and indentation.
    pub notes: Vec<String>,
    /// The fields in file order; names are unique within a record.
    pub fields: Vec<Field>,
    /// 1-based line number of the header.
    pub line: usize,
}

impl Record {
    /// The value of field `name`, if the record has it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.value.as_str())
    }
}
