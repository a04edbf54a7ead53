package main

// Stubs for commands that are not built yet go here: a command is built by
// writing cmdNAME in cmd_NAME.go and deleting its stub; commands() stays as
// is. Every command is built today.
