# bash completion for bpfcollect(1)                       -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Commands, options, formats and report views come from the bpfcollect being
# completed (--list-cmds, CMD --list-opts, --list-formats, report
# --list-views), as git's completion asks git: a new option or format
# completes without touching this file. What each option's value is (a pid,
# a file, a format) is known here. Works with or without the bash-completion
# package; `make install` puts it where that package loads it on demand.

# The bpfcollect to ask: the command word as typed when it runs, else the one in PATH.
_bpfcollect_bin() {
	local bin=${COMP_WORDS[0]}

	# shellcheck disable=SC2088 # a literal ~/ as typed: COMP_WORDS are not expanded
	[[ $bin == "~/"* ]] && bin=$HOME/${bin#"~/"}
	if [[ $bin == */* ]]; then
		[[ -x $bin ]] || bin=bpfcollect
	else
		type -P "$bin" >/dev/null 2>&1 || bin=bpfcollect
	fi
	printf '%s\n' "$bin"
}

# COMPREPLY from the words of $1 that start with cur.
_bpfcollect_words() {
	local IFS=$'\n'
	# shellcheck disable=SC2207 # one candidate per line
	COMPREPLY+=($(compgen -W "$1" -- "$cur"))
}

# Options of CMD (empty: the top level) as typed: --name= for one taking a
# value, --name and --name= for an optional one.
_bpfcollect_option_words() {
	"$bin" ${1:+"$1"} --list-opts 2>/dev/null | sed -e 's/^\(.*\)\[=\]$/\1\n\1=/' -e 's/^\(-[^-]\)=$/\1/'
}

# Does option $1 of the command take the next word as its value?
_bpfcollect_takes_value() {
	local o

	for o in "${value_opts[@]}"; do
		[[ $o == "$1" ]] && return 0
	done
	return 1
}

# Which option a short cluster such as -qo takes its value for, when the
# value is the next word ("-qo NAME"); nothing when it needs none.
_bpfcollect_cluster_opt() {
	local w=$1 i

	for ((i = 1; i < ${#w}; i++)); do
		if _bpfcollect_takes_value "-${w:i:1}"; then
			((i == ${#w} - 1)) && printf '%s\n' "-${w:i:1}"
			return
		fi
	done
}

# Directories: experiments (*.er) as they are, others to descend into.
_bpfcollect_experiments() {
	local d IFS=$'\n'

	for d in $(compgen -d -- "$cur"); do
		if [[ $d == *.er ]]; then
			COMPREPLY+=("$d")
		else
			COMPREPLY+=("$d/")
		fi
	done
	if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == */ ]]; then
		compopt -o nospace 2>/dev/null
	fi
}

_bpfcollect_dirs() {
	local IFS=$'\n'

	compopt -o filenames 2>/dev/null
	# shellcheck disable=SC2207 # one name per line
	COMPREPLY+=($(compgen -d -- "$cur"))
}

_bpfcollect_files() {
	local IFS=$'\n'

	compopt -o filenames 2>/dev/null
	# shellcheck disable=SC2207 # one name per line
	COMPREPLY+=($(compgen -f -- "$cur"))
}

# -P PID[,PID...]: the pids running now, after the ones already typed.
_bpfcollect_pids() {
	local typed="" p IFS=$'\n'

	if [[ $cur == *,* ]]; then
		typed=${cur%,*},
	fi
	for p in $(cd /proc && compgen -G '[0-9]*'); do
		[[ $typed$p == "$cur"* ]] && COMPREPLY+=("$typed$p")
	done
}

# The value of option opt of command cmd.
_bpfcollect_value() {
	case $cmd:$opt in
	*:-f | *:--format)
		_bpfcollect_words "$("$bin" --list-formats 2>/dev/null | cut -d' ' -f1)"
		;;
	record:-P) _bpfcollect_pids ;;
	record:-d) _bpfcollect_dirs ;;
	*:-o | *:--output) _bpfcollect_files ;;
	record:-p) _bpfcollect_words $'on\nlo\nhi\noff' ;;
	record:-H | record:-i | record:-F) _bpfcollect_words $'on\noff' ;;
	record:-s) _bpfcollect_words $'on\noff\nall' ;;
	record:-S) _bpfcollect_words $'on\noff' ;;
	record:-A) _bpfcollect_words $'on\noff\ncopy' ;;
	report:-s | report:--sort) _bpfcollect_words $'excl\nincl\ncalls\navg\nname' ;;
	*:--prf-layout) _bpfcollect_words $'hitachi\ncosminexus' ;;
	*:--prf-truncate) _bpfcollect_words $'first\nmiddle\nlast' ;;
	esac
}

# The words after the options, for what the command takes there.
_bpfcollect_operand() {
	local n=${#operands[@]} last

	case $cmd in
	record) _bpfcollect_command "$cword" ;;
	report)
		if ((n == 0)); then
			_bpfcollect_experiments
			return
		fi
		# a view followed by FUNC: that word is a function, not a view
		last=${operands[n - 1]}
		if ((n >= 2)) && "$bin" report --list-views 2>/dev/null | grep -qxF "$last FUNC"; then
			return
		fi
		_bpfcollect_words "$("$bin" report --list-views 2>/dev/null | cut -d' ' -f1)"
		;;
	convert | archive)
		((n == 0)) && _bpfcollect_experiments
		;;
	rtl-stat | gtf-dump) _bpfcollect_files ;;
	esac
}

# record CMD [ARGS]: the command from PATH, then what its own completion offers.
_bpfcollect_command() {
	local at=$1 IFS=$'\n'

	if declare -F _command_offset >/dev/null; then
		_command_offset "$at"
	elif ((cword == at)); then
		# shellcheck disable=SC2207 # one name per line; a name in two PATH directories once
		COMPREPLY+=($(compgen -c -- "$cur" | LC_ALL=C sort -u))
	else
		_bpfcollect_files
	fi
}

# The words before the cursor: options, their values, operands. Sets opt
# (the option whose value is at the cursor) and operands. record's first
# operand, or --, starts the traced command: completed here, returns 1. The
# other commands take -- as the end of the options.
_bpfcollect_scan() {
	local i word

	for ((i = 2; i < cword; i++)); do
		word=${COMP_WORDS[i]}
		if [[ -n $opt ]]; then
			opt=""
			[[ $word == = ]] && opt=${COMP_WORDS[i - 1]} # --opt = VALUE, split at '='
			continue
		fi
		if [[ $word == : ]]; then
			# OBJ:GLOB, split at ':' (COMP_WORDBREAKS): one word with the one before
			((i + 1 < cword)) && i=$((i + 1))
			continue
		fi
		if [[ $word == -- ]]; then
			if [[ $cmd == record ]]; then
				_bpfcollect_command $((i + 1))
				return 1
			fi
			operands+=("${COMP_WORDS[@]:i+1:cword-i-1}")
			return 0
		fi
		if [[ $word == --* ]]; then
			# --opt=VALUE in one word takes nothing more; split at '=' it does
			_bpfcollect_takes_value "$word" && opt=$word
			[[ ${COMP_WORDS[i + 1]-} == = ]] && opt=$word
		elif [[ $word == -?* ]]; then
			opt=$(_bpfcollect_cluster_opt "$word")
		elif [[ $cmd == record ]]; then
			_bpfcollect_command "$i"
			return 1
		else
			operands+=("$word")
		fi
	done
	return 0
}

# The word at the cursor: the value of an option, an option, or an operand.
_bpfcollect_at_cursor() {
	local prefix k

	if [[ $cur == : || ${COMP_WORDS[cword - 1]} == : ]]; then
		return 0 # the rest of an OBJ:GLOB
	elif [[ -n $opt ]]; then
		[[ $cur == = ]] && cur=""
		_bpfcollect_value
	elif [[ $cur == = ]] && [[ ${COMP_WORDS[cword - 1]} == --* ]]; then
		opt=${COMP_WORDS[cword - 1]} cur=""
		_bpfcollect_value
	elif [[ $cur == --*=* ]]; then
		# COMP_WORDBREAKS without '=': the value is in the word, after it
		prefix=${cur%%=*}= opt=${cur%%=*} cur=${cur#*=}
		_bpfcollect_value
		for k in "${!COMPREPLY[@]}"; do
			COMPREPLY[k]=$prefix${COMPREPLY[k]}
		done
	elif [[ $cur == -* ]]; then
		_bpfcollect_words "$(_bpfcollect_option_words "$cmd")"
		if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == *= ]]; then
			compopt -o nospace 2>/dev/null
		fi
	else
		_bpfcollect_operand
	fi
}

_bpfcollect() {
	local cur=${2-} bin cmd opt="" cword=$COMP_CWORD
	local -a value_opts=() operands=()

	COMPREPLY=()
	bin=$(_bpfcollect_bin)
	if ((cword == 1)); then
		if [[ $cur == -* ]]; then
			_bpfcollect_words "$(_bpfcollect_option_words)"
		else
			_bpfcollect_words "$("$bin" --list-cmds 2>/dev/null)"
		fi
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	# the options that take the next word as their value ("--bufsize=", "-o=")
	mapfile -t value_opts < <("$bin" "$cmd" --list-opts 2>/dev/null | sed -n 's/^\(-.*[^[]\)=$/\1/p')
	_bpfcollect_scan && _bpfcollect_at_cursor
	return 0
}

complete -F _bpfcollect bpfcollect
