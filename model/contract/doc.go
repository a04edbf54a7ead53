// Package contract holds the frozen JSON contracts other programs speak with
// mailsift, starting with the triage contract v1.0 (Request, Result,
// Response): the wire types, strict parsers that name the JSON path of
// every violation, and the JSON Schemas. The MCP, scheduling and
// approval/audit contracts join it here.
package contract
