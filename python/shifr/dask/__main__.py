"""``python -m shifr.dask``: encrypt-tree, decrypt-tree, encrypt-object and bench over a Dask cluster
(an embedded LocalCluster unless ``--scheduler tcp://host:port``). Errors print one line and exit
with the CLI's codes (docs/FORMAT.md)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

import shifr
from shifr import dask as sd


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scheduler", metavar="ADDR", help="tcp://host:port of a running Dask scheduler")
    p.add_argument("--workers", type=int, default=2, help="LocalCluster workers (default 2)")
    p.add_argument("--threads", type=int, default=1, help="threads per file task (default 1)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m shifr.dask", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    enc = sub.add_parser("encrypt-tree", help="encrypt every file of SRC into DST/REL.shifr")
    enc.add_argument("src", metavar="SRC")
    enc.add_argument("dst", metavar="DST")
    enc.add_argument("--key-file", required=True, metavar="FILE")
    enc.add_argument("-a", "--algorithm", metavar="AEAD")
    enc.add_argument("--chunk-size", type=int, metavar="BYTES")
    enc.add_argument("--split-bytes", type=int, default=sd.SPLIT_BYTES, metavar="BYTES",
                     help="split files larger than this over the workers (default 64 MiB)")
    enc.add_argument("--range-bytes", type=int, default=sd.RANGE_BYTES, metavar="BYTES",
                     help="plaintext bytes per range of a split file (default 16 MiB)")
    _common(enc)

    dec = sub.add_parser("decrypt-tree", help="decrypt every REL.shifr of SRC into DST/REL")
    dec.add_argument("src", metavar="SRC")
    dec.add_argument("dst", metavar="DST")
    dec.add_argument("--key-file", required=True, metavar="FILE")
    dec.add_argument("--no-verify", action="store_true", help="do not check the manifest")
    _common(dec)

    obj = sub.add_parser("encrypt-object", help="encrypt one file, its chunk ranges on many workers")
    obj.add_argument("src", metavar="SRC")
    obj.add_argument("dst", metavar="DST")
    obj.add_argument("--key-file", required=True, metavar="FILE")
    obj.add_argument("-a", "--algorithm", metavar="AEAD")
    obj.add_argument("--chunk-size", type=int, metavar="BYTES")
    obj.add_argument("--range-bytes", type=int, default=sd.RANGE_BYTES, metavar="BYTES")
    _common(obj)

    ben = sub.add_parser("bench", help="shifr bench on every worker, merged into one report")
    ben.add_argument("--alg", default="aes-256-gcm,chacha20-poly1305", help="comma-separated names")
    ben.add_argument("--size", default="16KiB,1MiB", help="comma-separated sizes")
    ben.add_argument("--peers", default="none", help="openssl,openssl-gost,rustcrypto, all or none")
    ben.add_argument("--seconds", type=float, default=0.12, help="measured seconds per row")
    ben.add_argument("--cli", metavar="SHIFR", help="run this `shifr` binary's bench --json instead")
    ben.add_argument("-o", "--output", metavar="FILE", help="write the merged JSON report here")
    ben.add_argument("--report", metavar="DIR",
                     help="also write the multi-machine report of `shifr report merge` into DIR")
    _common(ben)
    return parser


def _throughput(label: str, summary: dict) -> None:
    print(
        f"{label}: {summary['files']} files, {summary['bytes']} bytes in {summary['seconds']:.3f} s: "
        f"{summary['mb_s']:.1f} MB/s"
        + (f" ({summary['skipped']} skipped, done before)" if summary.get("skipped") else "")
    )


def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    progress = False if args.quiet else None
    client = None
    try:
        client = sd._client(args.scheduler, workers=args.workers, quiet_logs=True)
        if args.command == "encrypt-tree":
            s = sd.encrypt_tree(args.src, args.dst, key_file=args.key_file, aead=args.algorithm,
                                chunk_size=args.chunk_size, split_bytes=args.split_bytes,
                                range_bytes=args.range_bytes, threads=args.threads, client=client,
                                progress=progress)
            _throughput("encrypt-tree", s)
        elif args.command == "decrypt-tree":
            s = sd.decrypt_tree(args.src, args.dst, key_file=args.key_file, threads=args.threads,
                                client=client, progress=progress, verify=not args.no_verify)
            _throughput("decrypt-tree", s)
        elif args.command == "encrypt-object":
            e = sd.encrypt_object(args.src, args.dst, key_file=args.key_file, aead=args.algorithm,
                                  chunk_size=args.chunk_size, range_bytes=args.range_bytes,
                                  threads=args.threads, client=client, progress=progress)
            print(f"encrypt-object: {e['size']} bytes in {e['seconds']:.3f} s: "
                  f"{e['size'] / e['seconds'] / 1e6 if e['seconds'] > 0 else 0.0:.1f} MB/s")
        else:
            report = sd.bench_fleet(args.alg.split(","), args.size.split(","), args.peers,
                                    args.seconds, args.cli, client=client, report_dir=args.report)
            text = json.dumps(report, indent=1)
            if args.output:
                with open(args.output, "w", encoding="utf-8") as f:
                    f.write(text + "\n")
            else:
                print(text)
            for n in report["notes"]:
                print(f"shifr.dask: note: {n}", file=sys.stderr)
        return 0
    except shifr.ShifrError as e:
        print(f"shifr.dask: error: {e}", file=sys.stderr)
        return e.exit_code
    except OSError as e:
        print(f"shifr.dask: error: {e}", file=sys.stderr)
        return 8
    finally:
        if client is not None:
            sd._close(client)


if __name__ == "__main__":
    sys.exit(main())
