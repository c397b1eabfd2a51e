#!/usr/bin/env bash
# Throughput of shifr encrypt/decrypt on a 1 GiB tmpfs file against age and openssl enc (docs/BENCHMARKS.md).
# Needs age and a release build; one timed run per line.
set -e
cd "$(dirname "$0")/.."
B=${SHIFR:-target/release/shifr}
D=/dev/shm/shifr-bench; rm -rf $D; mkdir -p $D
head -c 1073741824 /dev/urandom > $D/plain
$B keygen -o $D/key
age-keygen -o $D/age.key 2>/dev/null; R=$(age-keygen -y $D/age.key)
t() { local s=$(date +%s.%N); "$@"; local e=$(date +%s.%N); python3 -c "print(f'{1024/($e-$s):7.0f} MiB/s  ({$e-$s:.2f} s)')"; }
for a in chacha20-poly1305 aes-256-gcm; do for th in 1 2; do
  echo -n "shifr encrypt -a $a --threads $th: "; t $B encrypt -q -a $a --threads $th --key-file $D/key -o $D/c --force $D/plain
  echo -n "shifr decrypt ($a) --threads $th: "; t $B decrypt -q --threads $th --key-file $D/key -o $D/d --force $D/c
done; done
cmp $D/plain $D/d
echo -n "age -e -r (X25519, ChaCha20-Poly1305 STREAM): "; t age -e -r $R -o $D/a $D/plain
echo -n "age -d: "; t age -d -i $D/age.key -o $D/ad $D/a
echo -n "openssl enc -chacha20 (no authentication): "; t openssl enc -chacha20 -K $(head -c 32 /dev/zero | xxd -p -c 64) -iv 00000000000000000000000000000000 -in $D/plain -out $D/o
echo -n "openssl enc -aes-256-ctr (no authentication): "; t openssl enc -aes-256-ctr -K $(head -c 32 /dev/zero | xxd -p -c 64) -iv 00000000000000000000000000000000 -in $D/plain -out $D/o
rm -rf $D
