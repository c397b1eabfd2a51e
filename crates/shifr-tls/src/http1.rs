//! The few HTTP/1.1 pieces the OpenSSL server and client need (they run over blocking OpenSSL
//! streams, outside hyper): reading a message head, the request target, `Content-Length`, and the
//! routes both servers serve. Never panics on any input: malformed heads are errors.

use std::io::{self, Read, Write};

/// The small response's body length: a typical API reply or small page.
pub const SMALL_BODY: u64 = 1024;
/// The largest `/bytes/N` body a server sends (1 GiB).
pub const MAX_BODY: u64 = 1 << 30;
/// The longest message head accepted.
const MAX_HEAD: usize = 16 * 1024;

/// What a path asks for: the body length of a 200 response, or `None` for 404.
/// `/small` is [`SMALL_BODY`] bytes, `/bytes/N` is N bytes (N at most [`MAX_BODY`]).
pub fn route(path: &str) -> Option<u64> {
    if path == "/small" {
        return Some(SMALL_BODY);
    }
    path.strip_prefix("/bytes/")
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|&n| n <= MAX_BODY)
}

/// The body bytes every response repeats: a fixed pattern (the cipher's cost does not depend on the
/// data, and TLS does not compress).
pub fn pattern() -> &'static [u8] {
    static PATTERN: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    PATTERN.get_or_init(|| {
        (0..256 * 1024u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect()
    })
}

/// Reads one message head (through the blank line) into a fresh vector, keeping any bytes read past
/// it in `pending` for the next call. `Ok(None)` on a clean end of stream before any byte.
pub fn read_head<R: Read>(r: &mut R, pending: &mut Vec<u8>) -> io::Result<Option<Vec<u8>>> {
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = find_blank_line(pending) {
            let rest = pending.split_off(end);
            return Ok(Some(std::mem::replace(pending, rest)));
        }
        if pending.len() > MAX_HEAD {
            return Err(invalid("HTTP head too long"));
        }
        let n = r.read(&mut chunk)?;
        if n == 0 {
            return if pending.is_empty() {
                Ok(None)
            } else {
                Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "HTTP head cut short",
                ))
            };
        }
        pending.extend_from_slice(&chunk[..n]);
    }
}

fn find_blank_line(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// The target of a `GET` request line.
pub fn get_target(head: &[u8]) -> io::Result<&str> {
    let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
    let line = std::str::from_utf8(line).map_err(|_| invalid("request line is not UTF-8"))?;
    let mut parts = line.split(' ');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("GET"), Some(target), Some(v)) if v.starts_with("HTTP/1.") => Ok(target),
        _ => Err(invalid("not a GET request line")),
    }
}

/// The status code and `Content-Length` of a response head.
pub fn response_status_and_length(head: &[u8]) -> io::Result<(u16, u64)> {
    let text = std::str::from_utf8(head).map_err(|_| invalid("response head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid("bad status line"))?;
    let length = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .ok_or_else(|| invalid("no Content-Length"))?;
    Ok((status, length))
}

/// Writes a response: 200 with `len` pattern bytes, or an empty 404.
pub fn write_response<W: Write>(w: &mut W, len: Option<u64>) -> io::Result<()> {
    let (status, n) = match len {
        Some(n) => ("200 OK", n),
        None => ("404 Not Found", 0),
    };
    write!(
        w,
        "HTTP/1.1 {status}\r\nContent-Length: {n}\r\nContent-Type: application/octet-stream\r\n\r\n"
    )?;
    let pattern = pattern();
    let mut left = n;
    while left > 0 {
        let k = left.min(pattern.len() as u64) as usize;
        w.write_all(&pattern[..k])?;
        left -= k as u64;
    }
    w.flush()
}

/// Sends `GET path` on a keep-alive connection and reads the whole response; the body length.
pub fn get<S: Read + Write>(s: &mut S, path: &str, pending: &mut Vec<u8>) -> io::Result<u64> {
    write!(s, "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n")?;
    s.flush()?;
    let head = read_head(s, pending)?
        .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed"))?;
    let (status, len) = response_status_and_length(&head)?;
    if status != 200 {
        return Err(invalid(&format!("status {status} for {path}")));
    }
    // Body: first whatever is pending, then straight from the stream.
    let from_pending = (pending.len() as u64).min(len) as usize;
    pending.drain(..from_pending);
    let mut left = len - from_pending as u64;
    let mut buf = vec![0u8; 64 * 1024];
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        let n = s.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "body cut short",
            ));
        }
        left -= n as u64;
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(route("/small"), Some(SMALL_BODY));
        assert_eq!(route("/bytes/5"), Some(5));
        assert_eq!(route("/bytes/x"), None);
        assert_eq!(route(&format!("/bytes/{}", MAX_BODY + 1)), None);
        assert_eq!(route("/"), None);
    }

    /// A stream that reads from a fixed buffer (in pieces of 3 bytes) and collects writes.
    struct Pipe {
        input: Vec<u8>,
        at: usize,
        output: Vec<u8>,
    }

    impl Read for Pipe {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(3).min(self.input.len() - self.at);
            buf[..n].copy_from_slice(&self.input[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    impl Write for Pipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.output.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_server_response_is_what_the_client_reads() {
        let mut server_out = Vec::new();
        write_response(&mut server_out, Some(300_000)).unwrap();
        write_response(&mut server_out, Some(7)).unwrap();
        let mut pipe = Pipe {
            input: server_out,
            at: 0,
            output: Vec::new(),
        };
        let mut pending = Vec::new();
        assert_eq!(
            get(&mut pipe, "/bytes/300000", &mut pending).unwrap(),
            300_000
        );
        assert_eq!(get(&mut pipe, "/bytes/7", &mut pending).unwrap(), 7);
        let sent = String::from_utf8(pipe.output.clone()).unwrap();
        assert!(sent.starts_with("GET /bytes/300000 HTTP/1.1\r\n"));
        // The next read finds the end of the stream.
        assert!(get(&mut pipe, "/small", &mut pending).is_err());
    }

    #[test]
    fn malformed_heads_are_errors_not_panics() {
        assert!(get_target(b"POST / HTTP/1.1\r\n\r\n").is_err());
        assert!(get_target(b"\xff\r\n\r\n").is_err());
        assert_eq!(
            get_target(b"GET /small HTTP/1.1\r\n\r\n").unwrap(),
            "/small"
        );
        assert!(response_status_and_length(b"HTTP/1.1 200 OK\r\n\r\n").is_err());
        assert!(response_status_and_length(b"garbage").is_err());
        let mut long = Pipe {
            input: vec![b'a'; MAX_HEAD * 2],
            at: 0,
            output: Vec::new(),
        };
        assert!(read_head(&mut long, &mut Vec::new()).is_err());
    }
}
