# debian-source.sh -- fetch and unpack a Debian bookworm source package, adding
# a deb-src entry first if apt has none; sourced by build-fio.sh and
# tests/build-jansson.sh. Needs root (apt-get update) only when it adds the entry.

debsrc_list=/etc/apt/sources.list.d/mglru-harness-src.sources

# Is there a deb-src entry for bookworm main already (one-line or deb822 style)?
have_deb_src() {
	grep -rhsE '^[[:space:]]*deb-src[[:space:]].*[[:space:]]bookworm[[:space:]].*main' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list && return 0
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; IGNORECASE = 1 }
		     /(^|\n)Types:[^\n]*deb-src/ && /(^|\n)Suites:[^\n]*bookworm([ \t\n]|$)/ &&
		     /(^|\n)Components:[^\n]*main/ { found = 1 }
		     END { exit !found }' "$f" && return 0
	done
	return 1
}

# debsrc_fetch PKG DIR: PKG's .dsc and tarballs into DIR, once.
debsrc_fetch() {
	ls "$2/$1"_*.dsc >/dev/null 2>&1 && return 0
	if ! have_deb_src; then
		cat > "$debsrc_list" <<-EOS
		Types: deb-src
		URIs: http://deb.debian.org/debian
		Suites: bookworm
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOS
		apt-get update -q
	fi
	mkdir -p "$2"
	(cd "$2" && apt-get source --download-only "$1")
}

# debsrc_unpack PKG DIR DEST: the source tree, Debian's patches applied, in DEST.
# apt-get source already checked the files against the signed Sources index;
# dpkg-source's own check of the uploader's signature fails without
# debian-keyring, so its warning is only shown if unpacking fails.
debsrc_unpack() {
	local log
	log=$(mktemp)
	if ! dpkg-source -x "$(ls "$2/$1"_*.dsc | head -n 1)" "$3" > "$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		echo "$1: dpkg-source -x failed" >&2
		return 1
	fi
	rm -f "$log"
}
