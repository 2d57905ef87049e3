;; The page scanner (src/api/json-scan.ts) in WebAssembly: a JSON array checked as JSON.parse would check it and
;; cut into its elements. It is the same algorithm as scanJsonList() and scanValue() in json-scan.ts, step for step,
;; with strings skipped 16 bytes at a time (SIMD). It runs as V8's baseline compiler makes it (the bin sets
;; --liftoff-only), which still makes it three to four times faster than the JavaScript, from the first page.
;;
;; Built into src/api/json-scan-wasm.ts by `npm run wasm` (scripts/wasm.mjs); a test fails when that is stale.
;;
;; Memory:
;;   [0, 256)            a class for each byte: 1 may follow a backslash, 2 is a hexadecimal digit
;;   [256, 4352)         the containers open in the value being scanned: 1 an object, 0 an array
;;   [4352, 69888)       where each element starts (up to 16,384 of them, 32 bits each)
;;   [69888, 135424)     where each element ends
;;   [135424, 200960)    the separator after each element (its comma, or the closing bracket)
;;   [200960, ...)       the text (json-scan.ts copies it here), followed by 16 zero bytes: they end any string,
;;                       number, literal or space that runs into the end, so no loop checks where the text ends
;;
;; list(open, end) scans the array whose bracket is at `open` up to the end of the text, as scanJsonList() does:
;; it returns how many elements it has (their offsets in the text in the tables above), -1 when it is malformed, -2 when it
;; has more than 65,536 elements or nests deeper than 4,096 containers (json-scan.ts then scans it in JavaScript).
;; The global `flags` collects what ScannedList reports: 1 a backslash escape, 2 a number in other than its
;; shortest form, 4 a key that starts with a digit, 8 a line break between tokens, 16 an element that is not an
;; object.
(module
  (memory (export "memory") 1)
  (global $flags (export "flags") (mut i32) (i32.const 0))

  (data (i32.const 0x22) "\01")                   ;; "
  (data (i32.const 0x2f) "\01")                   ;; /
  (data (i32.const 0x30) "\02\02\02\02\02\02\02\02\02\02")  ;; 0-9
  (data (i32.const 0x41) "\02\02\02\02\02\02")    ;; A-F
  (data (i32.const 0x5c) "\01")                   ;; \
  (data (i32.const 0x61) "\02\03\02\02\02\03")    ;; a-f (b and f are escapes as well)
  (data (i32.const 0x6e) "\01")                   ;; n
  (data (i32.const 0x72) "\01")                   ;; r
  (data (i32.const 0x74) "\01")                   ;; t

  ;; JSON space from p (space, tab, line feed, carriage return); notes line breaks. Returns the offset after it.
  (func $space (param $p i32) (result i32)
    (local $c i32)
    (block $done
      (loop $next
        (local.set $c (i32.load8_u (local.get $p)))
        (br_if $done (i32.gt_u (local.get $c) (i32.const 0x20)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 0x0a)) (i32.eq (local.get $c) (i32.const 0x0d)))
          (then (global.set $flags (i32.or (global.get $flags) (i32.const 8))))
          (else (br_if $done (i32.and (i32.ne (local.get $c) (i32.const 0x20)) (i32.ne (local.get $c) (i32.const 0x09))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (local.get $p))

  ;; The escape whose backslash is at p: the offset after it, or -1.
  (func $escape (param $p i32) (result i32)
    (local $c i32)
    (global.set $flags (i32.or (global.get $flags) (i32.const 1)))
    (local.set $c (i32.load8_u offset=1 (local.get $p)))
    (if (i32.eq (local.get $c) (i32.const 0x75)) ;; u and four hexadecimal digits
      (then
        (if (i32.eqz (i32.and
              (i32.and
                (i32.and (i32.load8_u (i32.load8_u offset=2 (local.get $p))) (i32.load8_u (i32.load8_u offset=3 (local.get $p))))
                (i32.and (i32.load8_u (i32.load8_u offset=4 (local.get $p))) (i32.load8_u (i32.load8_u offset=5 (local.get $p)))))
              (i32.const 2)))
          (then (return (i32.const -1))))
        (return (i32.add (local.get $p) (i32.const 6)))))
    (if (i32.eqz (i32.and (i32.load8_u (local.get $c)) (i32.const 1))) (then (return (i32.const -1))))
    (i32.add (local.get $p) (i32.const 2)))

  ;; The number at p: the offset after it, or -1; notes a number in other than its shortest form (a fraction, an
  ;; exponent, -0, more than 15 digits).
  (func $number (param $at i32) (result i32)
    (local $p i32) (local $first i32) (local $long i32)
    (local.set $p (local.get $at))
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2d)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
    (local.set $first (local.get $p))
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x30))
      (then (local.set $p (i32.add (local.get $p) (i32.const 1))))
      (else
        (if (i32.le_u (i32.sub (i32.load8_u (local.get $p)) (i32.const 0x30)) (i32.const 9))
          (then
            (loop $digits
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (br_if $digits (i32.le_u (i32.sub (i32.load8_u (local.get $p)) (i32.const 0x30)) (i32.const 9)))))
          (else (return (i32.const -1))))))
    (local.set $long (i32.or
      (i32.gt_u (i32.sub (local.get $p) (local.get $first)) (i32.const 15))
      (i32.and (i32.eq (i32.load8_u (local.get $at)) (i32.const 0x2d)) (i32.eq (i32.load8_u (local.get $first)) (i32.const 0x30)))))
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2e)) ;; .
      (then
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (if (i32.gt_u (i32.sub (i32.load8_u (local.get $p)) (i32.const 0x30)) (i32.const 9)) (then (return (i32.const -1))))
        (loop $digits
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br_if $digits (i32.le_u (i32.sub (i32.load8_u (local.get $p)) (i32.const 0x30)) (i32.const 9))))
        (local.set $long (i32.const 1))))
    (if (i32.eq (i32.or (i32.load8_u (local.get $p)) (i32.const 0x20)) (i32.const 0x65)) ;; e or E
      (then
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (if (i32.or (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2b)) (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2d)))
          (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
        (if (i32.gt_u (i32.sub (i32.load8_u (local.get $p)) (i32.const 0x30)) (i32.const 9)) (then (return (i32.const -1))))
        (loop $digits
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br_if $digits (i32.le_u (i32.sub (i32.load8_u (local.get $p)) (i32.const 0x30)) (i32.const 9))))
        (local.set $long (i32.const 1))))
    (if (local.get $long) (then (global.set $flags (i32.or (global.get $flags) (i32.const 2)))))
    (local.get $p))

  ;; true, false or null at p: the offset after it, or -1.
  (func $literal (param $p i32) (result i32)
    (local $word i32)
    (local.set $word (i32.load (local.get $p)))
    (if (i32.or (i32.eq (local.get $word) (i32.const 0x65757274)) (i32.eq (local.get $word) (i32.const 0x6c6c756e))) ;; true, null
      (then (return (i32.add (local.get $p) (i32.const 4)))))
    (if (i32.and (i32.eq (local.get $word) (i32.const 0x736c6166)) (i32.eq (i32.load8_u offset=4 (local.get $p)) (i32.const 0x65))) ;; false
      (then (return (i32.add (local.get $p) (i32.const 5)))))
    (i32.const -1))

  ;; The value at p (not space): the offset after it, -1 when malformed, -2 when nested too deep.
  (func $value (param $p i32) (result i32)
    (local $depth i32) (local $c i32) (local $object i32) (local $key i32) (local $bytes v128) (local $stops i32)
    (loop $value
      ;; In an object, a key comes first: a string, a colon, space.
      (if (local.get $key)
        (then
          (local.set $key (i32.const 0))
          (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x22)) (then (return (i32.const -1))))
          (if (i32.le_u (i32.sub (i32.load8_u offset=1 (local.get $p)) (i32.const 0x30)) (i32.const 9))
            (then (global.set $flags (i32.or (global.get $flags) (i32.const 4)))))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (block $closed
            (loop $run
              ;; 16 bytes at a time up to a quote, a backslash or a control byte.
              (local.set $bytes (v128.load (local.get $p)))
              (local.set $stops (i8x16.bitmask (v128.or
                (v128.or
                  (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x22)))
                  (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x5c))))
                (i8x16.lt_u (local.get $bytes) (i8x16.splat (i32.const 0x20))))))
              (if (i32.eqz (local.get $stops))
                (then
                  (local.set $p (i32.add (local.get $p) (i32.const 16)))
                  (br $run)))
              (local.set $p (i32.add (local.get $p) (i32.ctz (local.get $stops))))
              (local.set $c (i32.load8_u (local.get $p)))
              (if (i32.eq (local.get $c) (i32.const 0x22))
                (then
                  (local.set $p (i32.add (local.get $p) (i32.const 1)))
                  (br $closed)))
              (if (i32.ne (local.get $c) (i32.const 0x5c)) (then (return (i32.const -1))))
              (local.set $p (call $escape (local.get $p)))
              (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))
              (br $run)))
          (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 0x20)) (then (local.set $p (call $space (local.get $p)))))
          (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x3a)) (then (return (i32.const -1))))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 0x20)) (then (local.set $p (call $space (local.get $p)))))))
      (local.set $c (i32.load8_u (local.get $p)))
      (block $after
        (if (i32.eq (local.get $c) (i32.const 0x22))
          (then
            ;; A string, as a key's above.
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (loop $run
              (local.set $bytes (v128.load (local.get $p)))
              (local.set $stops (i8x16.bitmask (v128.or
                (v128.or
                  (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x22)))
                  (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x5c))))
                (i8x16.lt_u (local.get $bytes) (i8x16.splat (i32.const 0x20))))))
              (if (i32.eqz (local.get $stops))
                (then
                  (local.set $p (i32.add (local.get $p) (i32.const 16)))
                  (br $run)))
              (local.set $p (i32.add (local.get $p) (i32.ctz (local.get $stops))))
              (local.set $c (i32.load8_u (local.get $p)))
              (if (i32.eq (local.get $c) (i32.const 0x22))
                (then
                  (local.set $p (i32.add (local.get $p) (i32.const 1)))
                  (br $after)))
              (if (i32.ne (local.get $c) (i32.const 0x5c)) (then (return (i32.const -1))))
              (local.set $p (call $escape (local.get $p)))
              (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))
              (br $run))))
        (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x7b)) ;; { or [
          (then
            (local.set $object (i32.eq (local.get $c) (i32.const 0x7b)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 0x20)) (then (local.set $p (call $space (local.get $p)))))
            (if (i32.eq (i32.load8_u (local.get $p)) (i32.add (local.get $c) (i32.const 2))) ;; {} or []
              (then
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $after)))
            (if (i32.ge_u (local.get $depth) (i32.const 4096)) (then (return (i32.const -2))))
            (i32.store8 offset=256 (local.get $depth) (local.get $object))
            (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
            (local.set $key (local.get $object))
            (br $value)))
        (if (i32.or (i32.le_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 9)) (i32.eq (local.get $c) (i32.const 0x2d)))
          (then (local.set $p (call $number (local.get $p))))
          (else (local.set $p (call $literal (local.get $p)))))
        (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1)))))
      ;; After a value: a comma and the next, or the end of containers.
      (loop $close
        (if (i32.eqz (local.get $depth)) (then (return (local.get $p))))
        (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 0x20)) (then (local.set $p (call $space (local.get $p)))))
        (local.set $c (i32.load8_u (local.get $p)))
        (local.set $object (i32.load8_u offset=255 (local.get $depth)))
        (if (i32.eq (local.get $c) (i32.const 0x2c))
          (then
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 0x20)) (then (local.set $p (call $space (local.get $p)))))
            (local.set $key (local.get $object))
            (br $value)))
        (if (i32.ne (local.get $c) (select (i32.const 0x7d) (i32.const 0x5d) (local.get $object))) (then (return (i32.const -1))))
        (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $close)))
    (unreachable))

  ;; The array whose bracket is at $open, the text ending at $end: the number of its elements, -1, or -2.
  (func (export "list") (param $open i32) (param $end i32) (result i32)
    (local $p i32) (local $n i32) (local $c i32)
    (local.set $p (i32.add (local.get $open) (i32.const 1)))
    (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 0x20)) (then (local.set $p (call $space (local.get $p)))))
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x5d))
      (then (i32.store offset=135424 (i32.const 0) (i32.sub (local.get $p) (i32.const 200960))))
      (else
        (loop $element
          (if (i32.ge_u (local.get $n) (i32.const 16384)) (then (return (i32.const -2))))
          (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x7b)) (then (global.set $flags (i32.or (global.get $flags) (i32.const 16)))))
          (i32.store offset=4352 (i32.shl (local.get $n) (i32.const 2)) (i32.sub (local.get $p) (i32.const 200960)))
          (local.set $p (call $value (local.get $p)))
          (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (local.get $p))))
          (i32.store offset=69888 (i32.shl (local.get $n) (i32.const 2)) (i32.sub (local.get $p) (i32.const 200960)))
          (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 0x20)) (then (local.set $p (call $space (local.get $p)))))
          (local.set $c (i32.load8_u (local.get $p)))
          (i32.store offset=135424 (i32.shl (local.get $n) (i32.const 2)) (i32.sub (local.get $p) (i32.const 200960)))
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (if (i32.eq (local.get $c) (i32.const 0x2c))
            (then
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 0x20)) (then (local.set $p (call $space (local.get $p)))))
              (br $element)))
          (if (i32.ne (local.get $c) (i32.const 0x5d)) (then (return (i32.const -1)))))))
    ;; Nothing but space after the closing bracket (line breaks there are not between tokens: not noted).
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    (block $spaced
      (loop $trailing
        (br_if $spaced (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $p)))
        (br_if $spaced (i32.eqz (i32.or
          (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x0a)))
          (i32.or (i32.eq (local.get $c) (i32.const 0x0d)) (i32.eq (local.get $c) (i32.const 0x09))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $trailing)))
    (select (local.get $n) (i32.const -1) (i32.eq (local.get $p) (local.get $end))))
)
