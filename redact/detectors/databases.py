"""Database passwords where tool output carries them: SQL that sets one, `.pgpass` lines, and the
data source names of Go's MySQL driver and Oracle's clients.

An agent that administers a database runs `ALTER USER app WITH PASSWORD '…'` or `CREATE USER
'app'@'%' IDENTIFIED BY '…'`, `cat ~/.pgpass`, or prints a DSN such as `app:…@tcp(db:3306)/shop`
(go-sql-driver/mysql) or `sqlplus scott/…@orcl`. None of these has a token format, and none is
written as a secret-named assignment, so the other detectors pass them by. Each pattern below
starts at a literal keyword or delimiter and is bounded: linear time.
"""

from __future__ import annotations

import regex

from redact.detectors.base import Detector
from redact.detectors.vendor_support import password_value, token_of, vendor

__all__ = ["DATABASE_DETECTORS"]

# A quoted SQL string ('' is a quote inside it), a double-quoted identifier-style value (Oracle
# quotes passwords so), or Oracle's unquoted word after IDENTIFIED BY.
_SQL_STRING = r"""(?:'(?P<v>(?:[^'\\\n]|''|\\.){1,200})'|"(?P<v>[^"\n]{1,200})")"""
_SPACE = r"[ \t\r\n]"
_SQL_PASSWORD = (
    # PostgreSQL, Snowflake, SQL Server, MySQL: PASSWORD 'x', [WITH] PASSWORD = 'x',
    # PASSWORD = PASSWORD('x'), OLD_PASSWORD = 'x'
    rf"(?i:\b(?:old_)?password){_SPACE}*(?:={_SPACE}*(?:(?i:(?:old_)?password){_SPACE}*)?)?(?:\({_SPACE}*)?"
    + _SQL_STRING
    # MySQL: SET PASSWORD FOR 'user'@'host' = ['x' | PASSWORD('x')]
    + rf"|(?i:\bset{_SPACE}+password{_SPACE}+for\b)[^=;\n]{{1,200}}?={_SPACE}*"
    + rf"(?:(?i:password){_SPACE}*\({_SPACE}*)?{_SQL_STRING}"
    # MySQL, MariaDB, Oracle: IDENTIFIED [WITH plugin] BY ['x' | "x" | word]
    + rf"|(?i:\bidentified(?:{_SPACE}+with{_SPACE}+[A-Za-z0-9_]{{1,64}})?{_SPACE}+by)"
    + rf"(?:(?:{_SPACE}+(?i:password))?{_SPACE}*{_SQL_STRING}"
    + rf"|{_SPACE}+(?P<v>[A-Za-z0-9_$#!@%^*+-]{{1,128}}))"
)
# The statement the password belongs to: creating or changing a user, role or login, granting
# with a password, or setting one. Looked for before the match, within the same statement.
_SQL_CONTEXT = regex.compile(
    r"(?i)\b(?:(?:create|alter)\s+(?:user|role|login|group)|grant\b|set\s+password"
    r"|(?:create|alter)\s+(?:or\s+replace\s+)?(?:database\s+link|server|user\s+mapping))\b",
    regex.ASCII,
)


def _sql_password(match: regex.Match[str]) -> bool:
    """A password of a statement that sets one; not a placeholder, bind variable or reference."""
    value = token_of(match).replace("''", "'")
    if not password_value(value) or value[:1] in (":", "?"):
        return False
    # The statement up to the value: the 400 characters before the match and the match itself.
    start = match.start()
    before = match.string[max(0, start - 400) : match.start("v")]
    statement = before[before.rfind(";", 0, start - max(0, start - 400)) + 1 :]
    return _SQL_CONTEXT.search(statement) is not None


# hostname:port:database:username:password, one entry a line; `\:` and `\\` escape inside fields.
# (No white space or quote in a field: JSON text around an entry ends it with one.)
_PGPASS_FIELD = r"(?:[^:\s\\\"]|\\[^\s]){1,128}"
_PGPASS = (
    r"(?<![^\n])[ \t]*(?P<host>[A-Za-z0-9_.*\[\]-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])"
    rf":(?:[0-9]{{1,5}}|\*):{_PGPASS_FIELD}:{_PGPASS_FIELD}:(?P<v>{_PGPASS_FIELD})"
    r"(?=\r?\n|\Z)"
)


def _pgpass_entry(match: regex.Match[str]) -> bool:
    """A host is a name, an address or `*`, never a number alone (`12:30:45:00:1234` is a time)."""
    host = match.group("host")
    if not any(c.isalpha() or c in ".*[" for c in host):
        return False
    value = token_of(match)
    return password_value(value.replace("\\:", ":").replace("\\\\", "\\"))


# go-sql-driver/mysql: [user[:password]@][protocol[(address)]]/dbname[?params]
_GO_DSN = (
    r"(?<![A-Za-z0-9_.+:/@\[-])(?P<user>[A-Za-z0-9_.$-]{1,64}):(?P<v>[^\s@'\"`]{1,200})"
    r"@(?:(?:tcp6?|udp6?|unix|unixgram|pipe|memory|cloudsql(?:-mysql|-postgres)?)\(|/[A-Za-z0-9_$])"
)
# Oracle's clients: sqlplus user/password[@connect] (rman target …, expdp userid=…).
_ORACLE_LOGON = (
    r"\b(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl)"
    r"(?:[ \t]+(?:-[A-Za-z]{1,10}|target|catalog|auxiliary))*"
    r"[ \t]+(?:userid=)?['\"]?[A-Za-z0-9_$#]{1,30}/(?P<v>[^\s@/'\"]{1,200})(?=@|['\"\s]|\Z)"
)


def _logon(match: regex.Match[str]) -> bool:
    value = token_of(match)
    return password_value(value) and value.lower() != "nolog"


DATABASE_DETECTORS: tuple[Detector, ...] = (
    vendor(
        "sql-password",
        "Password in SQL that sets one (ALTER USER … PASSWORD '…', IDENTIFIED BY '…', SET PASSWORD)",
        _SQL_PASSWORD,
        r"(?i)(?:password[ \t\r\n]*(?:=[ \t\r\n]*(?:(?:old_)?password[ \t\r\n]*)?)?"
        r"(?:\([ \t\r\n]*)?['\"]|set[ \t\r\n]+password[ \t\r\n]+for"
        r"|identified[ \t\r\n]+(?:with[ \t\r\n]+[a-z0-9_]+[ \t\r\n]+)?by(?:[ \t\r\n]|['\"]))",
        _sql_password,
    ),
    vendor(
        "pgpass-password",
        "Password in a .pgpass line (hostname:port:database:username:password)",
        _PGPASS,
        # A host's last character, a port, three fields or more (an escaped colon makes more),
        # then the line's end: real, escaped as JSON writes it, or a JSON string's end.
        r"[A-Za-z0-9_.*\x{5d}-]:(?:[0-9]{1,5}|\*):(?:[^\s:\"]*:){2,}[^\s:\"]*"
        r"(?:$|\n|\r|\\[nr]|\")",
        _pgpass_entry,
    ),
    vendor(
        "dsn-password",
        "Password in a Go MySQL DSN (user:pw@tcp(host)/db) or an Oracle logon (sqlplus user/pw@db)",
        rf"{_GO_DSN}|{_ORACLE_LOGON}",
        # Literals only: a run after each `:` or a client's name would keep the scan's
        # automaton busy through every line of JSON.
        r"@(?:tcp6?|udp6?|unix|unixgram|pipe|memory|cloudsql[a-z-]*)\(|@/[A-Za-z0-9_$]"
        r"|sqlplus|sqlldr|expdp|impdp|rman[ \t]|dgmgrl",
        _logon,
    ),
)
