// SPDX-License-Identifier: MIT
// recover: 1000 guarded calls; every 4th panics two traced frames below the
// one that recovers (guard -> middle -> thrower), so Go unwinds through
// them. Then scale(1, 2, 3) ten times, whose arguments are in registers
// (Go's ABI). Prints the number of recovered panics and the sum.
package main

import (
	"fmt"
	"os"
	"time"
)

//go:noinline
func thrower(i int) int {
	if i%4 == 0 {
		panic(fmt.Sprintf("thrown %d", i))
	}
	return i
}

//go:noinline
func middle(i int) int { return thrower(i) + 1 }

//go:noinline
func guard(i int) (v int, caught bool) {
	defer func() {
		if recover() != nil {
			caught = true
		}
	}()
	return middle(i), false
}

//go:noinline
func scale(a, b, c int) int { return a*100 + b*10 + c }

//go:noinline
func blocked(started chan bool) {
	started <- true
	time.Sleep(time.Hour)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "exit" {
		started := make(chan bool)
		go blocked(started)
		<-started
		fmt.Println("exiting")
		return
	}
	caught, sum := 0, 0
	for i := 0; i < 1000; i++ {
		v, c := guard(i)
		if c {
			caught++
		}
		sum += v
	}
	for i := 0; i < 10; i++ {
		sum += scale(1, 2, 3)
	}
	fmt.Println("caught", caught, "sum", sum)
	time.Sleep(100 * time.Millisecond)
}
