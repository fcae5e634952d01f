#!/usr/bin/env python3
"""Writes the seed corpus of the pgoutput fuzz target (tests/fuzz/pgoutput_corpus/).

Each seed follows the input layout documented in src/tide/postgres/pgoutput_decoder_fuzz.cc: one options
byte, then records of (kind byte, UInt16 BE length, body). Run from anywhere; rewrites the folder.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "pgoutput_corpus")


def u8(v): return struct.pack(">B", v)
def u16(v): return struct.pack(">H", v)
def u32(v): return struct.pack(">I", v & 0xFFFFFFFF)
def i32(v): return struct.pack(">i", v)
def u64(v): return struct.pack(">Q", v & 0xFFFFFFFFFFFFFFFF)
def i64(v): return struct.pack(">q", v)
def s(text): return text.encode() + b"\0"
def t(v): return b"t" + i32(len(v)) + v
def b(v): return b"b" + i32(len(v)) + v


def rec(kind, body): return u8(kind) + u16(len(body)) + body
def msg(body): return rec(0, body)
def env(body): return rec(1, body)
def text_value(idx, v): return rec(2, u16(idx) + v)
def bin_value(idx, v): return rec(3, u16(idx) + v)


def relation(xid=None):
    cols = [(1, "id", 23, -1), (0, "name", 25, -1), (0, "price", 1700, ((12 << 16) | 2) + 4),
            (0, "seen", 1184, -1), (0, "tags", 1009, -1), (0, "doc", 3802, -1)]
    body = b"R" + (u32(xid) if xid is not None else b"") + u32(16384) + s("public") + s("items") + b"d" + u16(len(cols))
    for flags, name, oid, typmod in cols:
        body += u8(flags) + s(name) + u32(oid) + i32(typmod)
    return body


def numeric_send(ndigits, weight, sign, dscale, digits):
    return struct.pack(">hhHh", ndigits, weight, sign, dscale) + b"".join(struct.pack(">h", d) for d in digits)


TEXT_ROW = u16(6) + t(b"1") + t("Zoë ☃".encode()) + t(b"12.50") + t(b"2024-03-10 01:59:59-08") + \
    t(b'{a,"b c",NULL}') + t(b'{"k": [1, 2]}')
BIN_ROW = u16(6) + b(i32(2)) + b("東京".encode()) + b(numeric_send(2, 0, 0, 2, [12, 5000])) + \
    b(i64(763000000000000)) + b(i32(1) + i32(1) + u32(25) + i32(2) + i32(1) + i32(1) + b"x" + i32(-1)) + \
    b(b"\x01{}")
KEY_ROW = u16(6) + t(b"1") + b"nnnnn"
TOAST_ROW = u16(6) + t(b"1") + b"u" + b"n" + t(b"infinity") + b"u" + b"u"


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    begin = b"B" + u64(0x16B3748) + i64(763000000000000) + u32(777)
    commit = b"C" + u8(0) + u64(0x16B3748) + u64(0x16B3780) + i64(763000000000000)
    write("txn_text", u8(0) + msg(begin) + msg(relation()) + msg(b"I" + u32(16384) + b"N" + TEXT_ROW) +
          msg(b"U" + u32(16384) + b"K" + KEY_ROW + b"N" + TOAST_ROW) +
          msg(b"U" + u32(16384) + b"O" + TEXT_ROW + b"N" + TEXT_ROW) +
          msg(b"D" + u32(16384) + b"K" + KEY_ROW) + msg(commit))
    write("txn_binary", u8(1) + msg(begin) + msg(relation()) + msg(b"I" + u32(16384) + b"N" + BIN_ROW) +
          msg(b"D" + u32(16384) + b"O" + BIN_ROW) + msg(commit))
    write("misc_messages", u8(0) + msg(b"O" + u64(5) + s("origin_a")) + msg(b"Y" + u32(90001) + s("public") + s("mood")) +
          msg(b"T" + u32(2) + u8(3) + u32(16384) + u32(16385)) +
          msg(b"M" + u8(1) + u64(9) + s("tide.watermark") + i32(3) + b"abc"))
    write("stream", u8(5) + msg(b"S" + u32(900) + u8(1)) + msg(relation(900)) +
          msg(b"I" + u32(901) + u32(16384) + b"N" + TEXT_ROW) + msg(b"E") +
          msg(b"A" + u32(900) + u32(901) + u64(0x5000) + i64(1)) +
          msg(b"c" + u32(900) + u8(0) + u64(0x6000) + u64(0x6100) + i64(2)))
    write("two_phase", u8(2) + msg(b"b" + u64(1) + u64(2) + i64(3) + u32(4) + s("gid")) +
          msg(b"P" + u8(0) + u64(1) + u64(2) + i64(3) + u32(4) + s("gid")) +
          msg(b"K" + u8(0) + u64(1) + u64(2) + i64(3) + u32(4) + s("gid")) +
          msg(b"r" + u8(0) + u64(1) + u64(2) + i64(3) + i64(4) + u32(4) + s("gid")) +
          msg(b"p" + u8(0) + u64(1) + u64(2) + i64(3) + u32(4) + s("gid")))
    write("envelope", u8(0) + env(b"w" + u64(1) + u64(2) + i64(3) + begin) + env(b"k" + u64(1) + i64(2) + u8(1)))
    # Values: indexes follow kTypes in pgoutput_decoder_fuzz.cc.
    write("values_text", u8(0) + text_value(0, b"t") + text_value(2, b"-2147483648") + text_value(6, b"-Infinity") +
          text_value(7, b"123456789012345678901234567890.000001") + text_value(8, b"-0.01") +
          text_value(11, b"-$1,234.56") + text_value(18, b"\\x00ff") + text_value(20, b"4714-11-24 BC") +
          text_value(21, b"24:00:00") + text_value(23, b"294276-12-31 23:59:59.999999") +
          text_value(24, b"1900-01-01 00:00:00+00:19:32") + text_value(33, b"[0:2]={1,NULL,3}") +
          text_value(34, b'{"a\\"b",NULL,"",x}') + text_value(35, b"{1.50}"))
    write("values_binary", u8(0) + bin_value(2, i32(-1)) + bin_value(7, numeric_send(1, -2, 0x4000, 8, [1234])) +
          bin_value(9, numeric_send(0, 0, 0xC000, 0, [])) + bin_value(20, i32(2**31 - 1)) +
          bin_value(22, i64(0) + i32(-1172)) + bin_value(25, i64(-1500000) + i32(2) + i32(-25)) +
          bin_value(26, bytes([3, 64, 0, 16]) + bytes(16)) + bin_value(30, i32(10) + b"\xaa\xc0") +
          bin_value(33, i32(1) + i32(1) + u32(23) + i32(2) + i32(1) + i32(4) + i32(5) + i32(-1)) +
          bin_value(19, bytes(range(16))) + bin_value(17, b"\x01[1]"))


if __name__ == "__main__":
    main()
