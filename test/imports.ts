// What a module imports, read with TypeScript's own parser (no regex): the architecture test's
// file and folder graphs over src/, and the CLI tests' checks of what a built command loads.
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import ts from 'typescript'

export interface ModuleImport {
  specifier: string
  /**
   * Erased from the emitted JavaScript: `import type`, `export type`, a declaration whose named
   * bindings are all marked `type`, or a `typeof import('…')` type.
   */
  typeOnly: boolean
  /** An `import()` expression: loaded when that code runs, not when the module loads. */
  dynamic: boolean
}

const allTypeOnly = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) =>
  elements.length > 0 && elements.every((e) => e.isTypeOnly)

function declarationIsTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    return (
      node.isTypeOnly ||
      (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && allTypeOnly(node.exportClause.elements))
    )
  }
  const clause = node.importClause
  if (!clause) return false // `import './x.js'`: run for its effects
  if (clause.isTypeOnly) return true
  return (
    clause.name === undefined &&
    clause.namedBindings !== undefined &&
    ts.isNamedImports(clause.namedBindings) &&
    allTypeOnly(clause.namedBindings.elements)
  )
}

/** The module's imports and re-exports, in source order; `import()` calls with a non-literal argument are skipped. */
export function moduleImports(file: string): ModuleImport[] {
  const text = readFileSync(file, 'utf8')
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false)
  const found: ModuleImport[] = []
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: declarationIsTypeOnly(node), dynamic: false })
      return
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments
      if (arg && ts.isStringLiteralLike(arg)) found.push({ specifier: arg.text, typeOnly: false, dynamic: true })
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true, dynamic: false })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** A relative specifier as a path; from a .ts source, `./x.js` names `./x.ts` (NodeNext resolution). */
export function resolveLocal(file: string, specifier: string): string {
  const path = resolve(dirname(file), specifier)
  return file.endsWith('.ts') ? path.replace(/\.js$/, '.ts') : path
}

export const isLocal = (specifier: string) => specifier.startsWith('.')

/**
 * The files and packages a module reaches, following relative imports transitively: static,
 * type-only and (unless `staticOnly`) dynamic ones.
 */
export function importGraph(entry: string, staticOnly = false): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    for (const { specifier, dynamic } of moduleImports(file)) {
      if (staticOnly && dynamic) continue
      if (isLocal(specifier)) visit(resolveLocal(file, specifier))
      else packages.add(specifier)
    }
  }
  visit(entry)
  return { files, packages }
}
