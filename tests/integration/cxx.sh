# shellcheck shell=bash
# C++ names (docs/design.md, "Names"): -u globs on demangled names, every
# output showing them demangled, --no-demangle showing them raw. The program
# is built here with g++. Sourced by run.sh.
#
# No exception crosses a traced frame: that is another test's subject.

# A C++ program whose every function counts its calls: namespaces, a class's
# methods (one static, one with a name too long for PRF's 33 characters), an
# overloaded function and a template instantiated twice. noipa keeps each a
# real call with its own plain symbol (no .isra or .constprop clone).
cxx_build() { # cxx_build BINARY
	cat >cxxprog.cc <<'EOF'
#include <cstdio>
#include <cstdlib>
#define CALLED __attribute__((noipa))
namespace ns {
class Class {
public:
	CALLED int method(int x) { return x + 1; }
	CALLED static int helper(int x, char c) { return x + c; }
	CALLED int long_named_method_for_prf_names(int x) { return x ^ 5; }
};
} // namespace ns
CALLED int f(int x) { return x * 2; }
CALLED double f(double x) { return x / 2; }
template <typename T> CALLED T twice(T x) { return x + x; }
CALLED int thrower(int x) { return x - 1; }
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	volatile long sum = 0;
	ns::Class c;
	for (int i = 0; i < n; i++) {
		sum += thrower(i);
		sum += c.method(i);
		if (i % 2 == 0)
			sum += ns::Class::helper(i, 'a');
		if (i % 4 == 0)
			sum += c.long_named_method_for_prf_names(i);
		sum += f(i);
		if (i % 5 == 0)
			sum += (long)f(1.5 * i);
		sum += twice<int>(i);
		if (i < 3)
			sum += (long)twice<double>(i);
	}
	printf("%ld\n", (long)sum);
	return 0;
}
EOF
	g++ -O2 -g -fno-omit-frame-pointer -o "$1" cxxprog.cc
}

# Calls of NAME in report's functions view: NAME is the rest of the line
# after the object column (names hold spaces), so match the line's end.
cxx_calls() { # cxx_calls EXP NAME [REPORT_OPTION...]
	local exp=$1 name=$2
	shift 2
	"$BC" report "$@" "$exp" functions |
		awk -v n="  cxxprog  $name" 'length($0) >= length(n) && substr($0, length($0) - length(n) + 1) == n { print $1; found = 1 } END { if (!found) print 0 }'
}

cxx_no_raw() { # cxx_no_raw FILE...: all exist, none holds a mangled name
	local f
	for f in "$@"; do
		[ -s "$f" ] || return 1
		! grep -q '_Z[0-9N]' "$f" || return 1
	done
}

test_cxx_names() {
	echo "# C++: -u on demangled names, demangled names in every output, --no-demangle"
	if ! command -v g++ >/dev/null; then
		bad "g++ is needed to build the C++ program: apt-get install g++"
		return
	fi
	rm -rf cx.er cx.* cx_*.log cxr.* cxn.er cxn.*
	if ! cxx_build ./cxxprog; then
		bad "g++ builds the C++ program"
		return
	fi
	local n=100 long='ns::Class::long_named_method_for_prf_names(int)'
	# what the program does, by its loop: the counts the report must show
	local -A want=(['thrower(int)']=$n ['ns::Class::method(int)']=$n
		['ns::Class::helper(int, char)']=$((n / 2)) ["$long"]=$((n / 4))
		['f(int)']=$n ['f(double)']=0 ['int twice<int>(int)']=$n
		['double twice<double>(double)']=0)

	"$BC" record -q -o cx.er -f er -f text -f prf-csv -f chrome -f folded -f rtl -f gtf \
		-u thrower -u 'ns::Class::*' -u 'f(int)' -u 'twice<int>' \
		--arg 'ns::Class::helper(int, char)@arg1/d32,arg2/c' -- ./cxxprog $n \
		>cx.out 2>cx.err
	check_eq "record -u thrower -u 'ns::Class::*' -u 'f(int)' -u 'twice<int>' exits 0" 0 $?
	head -3 cx.err
	local name
	for name in "${!want[@]}"; do
		check_eq "report: calls of $name" "${want[$name]}" "$(cxx_calls cx.er "$name")"
	done
	check "the experiment opens in gprofng" gprofng_ok cx.er
	check "the experiment keeps the raw symbol (functions file)" \
		grep -qP '\t_Z7throweri$' cx.er/functions
	check "callers-callees 'ns::Class::meth*' finds the method" \
		grep -qF '*ns::Class::method(int)' <("$BC" report cx.er callers-callees 'ns::Class::meth*')
	check_eq "--arg 'ns::Class::helper(int, char)@...': calls 'ns::Class::helper' shows them" \
		$((n / 2)) "$("$BC" report -n $n cx.er calls 'ns::Class::helper' |
			grep -c "ns::Class::helper(int, char)(arg1=[0-9]*, arg2='a')")"
	check_eq "calltree: thrower(int) at the top, called $n times" "$n" \
		"$("$BC" report cx.er calltree | awk '$NF == "thrower(int)" { print $(NF - 1) }')"

	# the live outputs, each with its own name field's rules
	check_eq "text: entries of thrower(int)" "$n" "$(grep -c ' entry thrower(int) ' cx.txt)"
	check_eq "text: entries of ns::Class::helper(int, char) (spaces are ?)" $((n / 2)) \
		"$(grep -cF ' entry ns::Class::helper(int,?char) ' cx.txt)"
	check_eq "PRF: OPR thrower(int), entry and return" $((2 * n)) \
		"$(grep -c ',cxxprog,thrower(int),' cx.csv)"
	check_eq "PRF: OPR with a comma is quoted" $((2 * n / 2)) \
		"$(grep -cF ',cxxprog,"ns::Class::helper(int, char)",' cx.csv)"
	check_eq "PRF: a 47-character name is cut to 33 (32 and *)" $((2 * n / 4)) \
		"$(grep -cF ",cxxprog,${long:0:32}*," cx.csv)"
	check_eq "chrome: complete events of thrower(int)" "$n" \
		"$(chrome_q cx.json count X function 'thrower(int)')"
	check_eq "chrome: complete events of int twice<int>(int)" "$n" \
		"$(chrome_q cx.json count X function 'int twice<int>(int)')"
	check "folded: the line of ns::Class::helper(int, char)" \
		grep -qE '^cxxprog;ns::Class::helper\(int, char\) [0-9]+$' cx.folded
	check "RTL: the scope is ::ns::Class::method, without parameters" \
		grep -qE '^[0-9]+ [0-9]+ \{ cxxprog \([^)]*\) ::ns::Class::method : ' cx_*.log
	"$BC" gtf-dump cx.gtf >cx.gtfdump
	check_eq "GTF: func_entry records of thrower(int)" "$n" \
		"$(grep -c 'func_entry .* name="thrower(int)"' cx.gtfdump)"
	check "every output is there and none names a raw _Z symbol" \
		cxx_no_raw cx.txt cx.csv cx.json cx.folded cx_*.log cx.gtfdump

	# raw symbols: report and convert of the same experiment, and a live recording
	check_eq "report --no-demangle: calls of _Z7throweri" "$n" \
		"$(cxx_calls cx.er _Z7throweri --no-demangle)"
	check_eq "report --no-demangle: no demangled name" 0 \
		"$("$BC" report --no-demangle cx.er functions | grep -c '(int)')"
	"$BC" convert --no-demangle cx.er -f folded -o cxr.folded
	check "convert --no-demangle -f folded: the raw symbol" \
		grep -qE '^cxxprog;_Z7throweri [0-9]+$' cxr.folded
	"$BC" record -q --no-demangle -o cxn.er -f er -f text -f prf-csv \
		-u "cxxprog:ns::Class::helper(int, char)" -u thrower -- ./cxxprog $n >/dev/null 2>&1
	check_eq "record --no-demangle -u 'cxxprog:ns::Class::helper(int, char)': its calls" \
		$((n / 2)) "$(cxx_calls cxn.er 'ns::Class::helper(int, char)')"
	check_eq "record --no-demangle: text names _Z7throweri" "$n" \
		"$(grep -c ' entry _Z7throweri ' cxn.txt)"
	check_eq "record --no-demangle: PRF OPR _ZN2ns5Class6helperEic" $((2 * n / 2)) \
		"$(grep -c ',cxxprog,_ZN2ns5Class6helperEic,' cxn.csv)"
}

# Rust's legacy mangling (rustc's default): _ZN...17h<hash>E, shown without the
# hash. Needs rustc; skipped without it (tools/install-deps.sh does not install it).
test_rust_names() {
	echo "# Rust: -u on demangled paths, names without their hash"
	if ! command -v rustc >/dev/null; then
		echo "# rust_names: skipped, this machine has no rustc"
		return
	fi
	rm -rf rs.er rs.txt rsprog rsprog.rs
	cat >rsprog.rs <<'EOF2'
mod shapes {
    pub struct Circle { pub r: f64 }
    impl Circle {
        #[inline(never)]
        pub fn area(&self) -> f64 { self.r * self.r * 3.0 }
    }
    #[inline(never)]
    pub fn count(n: u64) -> u64 { n + 1 }
}
fn main() {
    let (mut s, mut c) = (0.0, 0);
    for i in 0..40 {
        let k = shapes::Circle { r: i as f64 };
        s += k.area();
        if i % 4 == 0 { c = shapes::count(c); }
    }
    println!("{} {}", s, c);
}
EOF2
	# stable rustc mangles the legacy way (v0 is a nightly -C option)
	if ! rustc -O -g -o rsprog rsprog.rs 2>rs.err; then
		bad "rustc builds the Rust program: $(head -3 rs.err)"
		return
	fi
	"$BC" record -q -o rs.er -f er -f text -u 'rsprog::shapes::*' -- ./rsprog >/dev/null 2>rs.err
	check_eq "record -u 'rsprog::shapes::*' exits 0" 0 $?
	check_eq "report: calls of rsprog::shapes::Circle::area" 40 \
		"$("$BC" report rs.er functions | awk '$NF == "rsprog::shapes::Circle::area" { print $1 }')"
	check_eq "report: calls of rsprog::shapes::count" 10 \
		"$("$BC" report rs.er functions | awk '$NF == "rsprog::shapes::count" { print $1 }')"
	check_eq "text: entries of rsprog::shapes::count, no hash in any name" "10 0" \
		"$(grep -c ' entry rsprog::shapes::count ' rs.txt) $(grep -c '::h[0-9a-f]\{16\}' rs.txt)"
	check "report --no-demangle: the raw legacy symbol, hash and all" \
		grep -qE '_ZN6rsprog6shapes5count17h[0-9a-f]{16}E$' <("$BC" report --no-demangle rs.er functions)
}
