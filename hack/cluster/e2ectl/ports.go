package main

import (
	"fmt"
	"net"
)

// printFreePorts holds all n listeners open at once so the ports are distinct,
// then releases them for the components to bind. Another process may take one
// in between; the script then fails with the component's log, which is rare
// enough for a test cluster.
func printFreePorts(n int) error {
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		listeners = append(listeners, l)
	}
	for _, l := range listeners {
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
	}
	return nil
}
