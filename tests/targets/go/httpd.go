// SPDX-License-Identifier: MIT
// httpd: a net/http server and its client, for attaching to a live server.
//
//	httpd serve PORTFILE   serves /hello on a free loopback port, written to
//	                       PORTFILE; /quit makes it print how many /hello it
//	                       answered and exit 0
//	httpd get PORT N       N requests of /hello, one after the other; prints
//	                       how many were answered with 200 (exit 1 if not all)
//	httpd quit PORT
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
)

var served int64

//go:noinline
func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}

//go:noinline
func hello(w http.ResponseWriter, r *http.Request) {
	atomic.AddInt64(&served, 1)
	fmt.Fprintf(w, "hello %d\n", work(1000))
}

func serve(portFile string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "httpd:", err)
		os.Exit(1)
	}
	srv := &http.Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", hello)
	mux.HandleFunc("/quit", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "bye")
		go srv.Shutdown(context.Background())
	})
	srv.Handler = mux
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	if err := os.WriteFile(portFile+".tmp", []byte(port+"\n"), 0644); err != nil ||
		os.Rename(portFile+".tmp", portFile) != nil {
		fmt.Fprintln(os.Stderr, "httpd: cannot write", portFile)
		os.Exit(1)
	}
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "httpd:", err)
		os.Exit(1)
	}
	fmt.Println("served", atomic.LoadInt64(&served))
}

func get(port string, path string) bool {
	resp, err := http.Get("http://127.0.0.1:" + port + path)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == 200
}

func main() {
	if len(os.Args) >= 3 && os.Args[1] == "serve" {
		serve(os.Args[2])
		return
	}
	if len(os.Args) >= 4 && os.Args[1] == "get" {
		n, _ := strconv.Atoi(os.Args[3])
		ok := 0
		for i := 0; i < n; i++ {
			if get(os.Args[2], "/hello") {
				ok++
			}
		}
		fmt.Println("answered", ok)
		if ok != n {
			os.Exit(1)
		}
		return
	}
	if len(os.Args) >= 3 && os.Args[1] == "quit" {
		get(os.Args[2], "/quit")
		return
	}
	fmt.Fprintln(os.Stderr, "usage: httpd serve PORTFILE | get PORT N | quit PORT")
	os.Exit(2)
}
