package dev.fenced.internal.spring.lease;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.ConstantDynamic;
import org.springframework.asm.Handle;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;
import org.springframework.util.ClassUtils;

/**
 * Calls of a method on {@code this}, read from a class's bytecode with Spring's repackaged ASM (on the class path of
 * every Spring application): {@code this.job()} or {@code job()} inside the class, a {@code super.job()}, a
 * {@code this::job} method reference, a call through one of its interfaces ({@code ((Api) this).job()}), a call in a
 * default method of an interface it implements, and {@code Outer.this.job()} (or plain {@code job()}) in an inner,
 * local or anonymous class of the bean's class, which reaches the bean through the inner object's {@code this$0}. A call on another instance of the same class ({@code self.job()} through an
 * injected reference) is not one: the receiver is followed on a model of the operand stack (which value is
 * {@code this}, slot by slot), carried along jumps to their targets; where only the stack map frame says what the
 * stack holds (an exception handler, a loop's head), no value there is taken for {@code this}.
 */
final class SelfCalls {

    /**
     * One call on {@code this}: the calling method of {@code declaredBy} ({@code <init>} for a constructor, a
     * synthetic {@code lambda$...} for a lambda's body), and the method called: {@code special} for
     * {@code super.m()} or a private method, resolved from {@code owner}; else virtual, resolved from the object's
     * class.
     */
    record Call(
            Class<?> declaredBy,
            String callerName,
            String callerDescriptor,
            String owner,
            String name,
            String descriptor,
            boolean special,
            int line) {}

    private SelfCalls() {}

    /**
     * The calls on {@code this} in the methods {@code type}, its superclasses and its interfaces declare (not the
     * JDK's), and in the inner classes of those classes.
     */
    static List<Call> in(Class<?> type) {
        Set<String> hierarchy = new HashSet<>();
        List<Class<?>> classes = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            hierarchy.add(Type.getInternalName(c));
            classes.add(c);
        }
        for (Class<?> i : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            hierarchy.add(Type.getInternalName(i));
            classes.add(i); // default methods call this.job() too
        }
        List<Call> calls = new ArrayList<>();
        for (Class<?> c : classes) {
            if (c.getClassLoader() == null) {
                continue; // the JDK's
            }
            read(c, hierarchy, calls, false);
            for (Class<?> member : c.getNestMembers()) {
                // its inner, local and anonymous classes (a nest also holds its host's other nested classes)
                if (member != c && member.getName().startsWith(c.getName() + "$")) {
                    read(member, hierarchy, calls, true);
                }
            }
        }
        return calls;
    }

    /**
     * Reads the calls of {@code c}'s methods; {@code inner}: its {@code this} is an inner object, and the bean is
     * reached through a {@code this$n} field holding an enclosing instance of the hierarchy.
     */
    private static void read(Class<?> c, Set<String> hierarchy, List<Call> calls, boolean inner) {
        try (InputStream in = c.getResourceAsStream(ClassUtils.getClassFileName(c))) {
            if (in == null) {
                return; // generated at run time: no class file to read, and no code a user wrote
            }
            new ClassReader(in).accept(new Reader(c, hierarchy, calls, inner), ClassReader.EXPAND_FRAMES);
        } catch (IOException e) {
            throw new UncheckedIOException("fenced: cannot read the class file of " + c.getName(), e);
        }
    }

    private static final class Reader extends ClassVisitor {
        private final Class<?> type;
        private final Set<String> hierarchy;
        private final List<Call> calls;
        private final boolean inner;

        Reader(Class<?> type, Set<String> hierarchy, List<Call> calls, boolean inner) {
            super(SpringAsmInfo.ASM_VERSION);
            this.type = type;
            this.hierarchy = hierarchy;
            this.calls = calls;
            this.inner = inner;
        }

        @Override
        public @Nullable MethodVisitor visitMethod(
                int access, String name, String descriptor, String signature, String[] exceptions) {
            if ((access & (Opcodes.ACC_STATIC | Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_BRIDGE)) != 0) {
                return null; // no this (or no code); a bridge only forwards to the method it bridges
            }
            return new Stack(type, name, descriptor, hierarchy, calls, inner);
        }
    }

    /**
     * The operand stack, one entry per slot (a long or double takes two): {@code true} where the slot holds
     * {@code this}. Locals holding {@code this} (slot 0, and any it is stored into) are tracked as well.
     */
    private static final class Stack extends MethodVisitor {
        private final Class<?> type;
        private final String method;
        private final String methodDescriptor;
        private final Set<String> hierarchy;
        private final List<Call> calls;
        private final List<Boolean> slots = new ArrayList<>();
        private final BitSet thisLocals = new BitSet();
        /** The stack at each label jumped to ahead, as the jumps left it. */
        private final Map<Label, List<Boolean>> jumps = new HashMap<>();
        /** False after a goto, return, throw or switch, until the next label jumped to or frame. */
        private boolean reachable = true;

        private int line = -1;
        /**
         * An inner class's method: slot 0 is the inner object, tracked as {@code this} only to find its
         * {@code this$n} field (the enclosing bean); calls on the inner object itself are of the inner class, not
         * of the hierarchy, and so never counted.
         */
        private final boolean inner;

        Stack(Class<?> type, String method, String descriptor, Set<String> hierarchy, List<Call> calls, boolean inner) {
            super(SpringAsmInfo.ASM_VERSION);
            this.type = type;
            this.method = method;
            this.methodDescriptor = descriptor;
            this.hierarchy = hierarchy;
            this.calls = calls;
            this.inner = inner;
            thisLocals.set(0);
        }

        private void push(int n) {
            for (int i = 0; i < n; i++) {
                slots.add(Boolean.FALSE);
            }
        }

        private boolean pop() {
            return !slots.isEmpty() && slots.remove(slots.size() - 1);
        }

        private void pop(int n) {
            for (int i = 0; i < n; i++) {
                pop();
            }
        }

        private void apply(int popped, int pushed) {
            pop(popped);
            push(pushed);
        }

        /** The slot {@code depth} slots below the top (0: the top). */
        private boolean at(int depth) {
            int i = slots.size() - 1 - depth;
            return i >= 0 && slots.get(i);
        }

        @Override
        public void visitLineNumber(int line, Label start) {
            this.line = line;
        }

        @Override
        public void visitLabel(Label label) {
            List<Boolean> jumped = jumps.remove(label);
            if (jumped != null) {
                if (reachable) {
                    and(slots, jumped);
                } else {
                    slots.clear();
                    slots.addAll(jumped);
                }
                reachable = true;
            }
        }

        @Override
        public void visitFrame(int kind, int numLocal, Object[] local, int numStack, Object[] stack) {
            // a branch target or handler: the stack as the jumps and the fall-through to it left it (both must hold
            // this in a slot for it to be this there: cond ? this : other is not); else (a handler, a loop's head
            // reached back) as the frame states it, where no value is taken for this
            int size = 0;
            for (int i = 0; i < numStack; i++) {
                size += Opcodes.LONG.equals(stack[i]) || Opcodes.DOUBLE.equals(stack[i]) ? 2 : 1;
            }
            if (!reachable || slots.size() != size) {
                slots.clear();
                push(size);
            }
            reachable = true;
        }

        /** A jump to {@code label} with the stack as it is now. */
        private void jump(Label label) {
            List<Boolean> now = new ArrayList<>(slots);
            List<Boolean> other = jumps.putIfAbsent(label, now);
            if (other != null) {
                and(other, now);
            }
        }

        /** {@code into} keeps this only in the slots where {@code other} has it too. */
        private static void and(List<Boolean> into, List<Boolean> other) {
            if (into.size() != other.size()) {
                Collections.fill(into, Boolean.FALSE); // cannot happen in verified code
                return;
            }
            for (int i = 0; i < into.size(); i++) {
                into.set(i, into.get(i) && other.get(i));
            }
        }

        @Override
        public void visitInsn(int opcode) {
            switch (opcode) {
                case Opcodes.NOP -> {}
                case Opcodes.ACONST_NULL,
                        Opcodes.ICONST_M1,
                        Opcodes.ICONST_0,
                        Opcodes.ICONST_1,
                        Opcodes.ICONST_2,
                        Opcodes.ICONST_3,
                        Opcodes.ICONST_4,
                        Opcodes.ICONST_5,
                        Opcodes.FCONST_0,
                        Opcodes.FCONST_1,
                        Opcodes.FCONST_2 -> push(1);
                case Opcodes.LCONST_0, Opcodes.LCONST_1, Opcodes.DCONST_0, Opcodes.DCONST_1 -> push(2);
                case Opcodes.LALOAD, Opcodes.DALOAD -> apply(2, 2);
                case Opcodes.IALOAD, Opcodes.FALOAD, Opcodes.AALOAD, Opcodes.BALOAD, Opcodes.CALOAD, Opcodes.SALOAD ->
                    apply(2, 1);
                case Opcodes.LASTORE, Opcodes.DASTORE -> pop(4);
                case Opcodes.IASTORE,
                        Opcodes.FASTORE,
                        Opcodes.AASTORE,
                        Opcodes.BASTORE,
                        Opcodes.CASTORE,
                        Opcodes.SASTORE -> pop(3);
                case Opcodes.POP -> pop(1);
                case Opcodes.POP2 -> pop(2);
                case Opcodes.DUP -> slots.add(at(0));
                case Opcodes.DUP_X1 -> insert(1, 2);
                case Opcodes.DUP_X2 -> insert(1, 3);
                case Opcodes.DUP2 -> {
                    boolean a = at(1);
                    boolean b = at(0);
                    slots.add(a);
                    slots.add(b);
                }
                case Opcodes.DUP2_X1 -> insert(2, 3);
                case Opcodes.DUP2_X2 -> insert(2, 4);
                case Opcodes.SWAP -> {
                    boolean a = pop();
                    boolean b = pop();
                    slots.add(a);
                    slots.add(b);
                }
                case Opcodes.INEG, Opcodes.FNEG, Opcodes.LNEG, Opcodes.DNEG -> {}
                case Opcodes.LSHL, Opcodes.LSHR, Opcodes.LUSHR -> pop(1);
                case Opcodes.ISHL, Opcodes.ISHR, Opcodes.IUSHR, Opcodes.IAND, Opcodes.IOR, Opcodes.IXOR -> pop(1);
                case Opcodes.LAND, Opcodes.LOR, Opcodes.LXOR -> pop(2);
                case Opcodes.I2F, Opcodes.F2I, Opcodes.I2B, Opcodes.I2C, Opcodes.I2S, Opcodes.L2D, Opcodes.D2L -> {}
                case Opcodes.I2L, Opcodes.I2D, Opcodes.F2L, Opcodes.F2D -> apply(1, 2);
                case Opcodes.L2I, Opcodes.L2F, Opcodes.D2I, Opcodes.D2F -> apply(2, 1);
                case Opcodes.LCMP, Opcodes.DCMPL, Opcodes.DCMPG -> apply(4, 1);
                case Opcodes.FCMPL, Opcodes.FCMPG -> apply(2, 1);
                case Opcodes.IRETURN,
                        Opcodes.LRETURN,
                        Opcodes.FRETURN,
                        Opcodes.DRETURN,
                        Opcodes.ARETURN,
                        Opcodes.RETURN,
                        Opcodes.ATHROW -> {
                    slots.clear();
                    reachable = false;
                }
                case Opcodes.ARRAYLENGTH -> apply(1, 1);
                case Opcodes.MONITORENTER, Opcodes.MONITOREXIT -> pop(1);
                default -> {
                    if (opcode >= Opcodes.IADD && opcode <= Opcodes.DREM) {
                        // xADD, xSUB, xMUL, xDIV, xREM for I, L, F, D in turn
                        int size = (opcode - Opcodes.IADD) % 4 % 2 == 1 ? 2 : 1;
                        apply(2 * size, size);
                    } else {
                        throw new IllegalStateException("fenced: unexpected opcode " + opcode);
                    }
                }
            }
        }

        /** DUPn_Xm: the top {@code n} slots copied below the top {@code below} slots. */
        private void insert(int n, int below) {
            List<Boolean> top = new ArrayList<>(slots.subList(Math.max(0, slots.size() - n), slots.size()));
            slots.addAll(Math.max(0, slots.size() - below), top);
        }

        @Override
        public void visitIntInsn(int opcode, int operand) {
            if (opcode == Opcodes.NEWARRAY) {
                apply(1, 1);
            } else {
                push(1); // BIPUSH, SIPUSH
            }
        }

        @Override
        public void visitVarInsn(int opcode, int var) {
            switch (opcode) {
                case Opcodes.ALOAD -> slots.add(thisLocals.get(var));
                case Opcodes.ILOAD, Opcodes.FLOAD -> push(1);
                case Opcodes.LLOAD, Opcodes.DLOAD -> push(2);
                case Opcodes.ASTORE -> thisLocals.set(var, pop());
                case Opcodes.ISTORE, Opcodes.FSTORE -> {
                    pop(1);
                    thisLocals.clear(var);
                }
                case Opcodes.LSTORE, Opcodes.DSTORE -> {
                    pop(2);
                    thisLocals.clear(var, var + 2);
                }
                default -> {} // RET
            }
        }

        @Override
        public void visitTypeInsn(int opcode, String type) {
            switch (opcode) {
                case Opcodes.NEW -> push(1);
                case Opcodes.CHECKCAST -> {} // ((Job) this).job() is still a call on this
                default -> apply(1, 1); // ANEWARRAY, INSTANCEOF
            }
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            int size = Type.getType(descriptor).getSize();
            switch (opcode) {
                case Opcodes.GETSTATIC -> push(size);
                case Opcodes.PUTSTATIC -> pop(size);
                case Opcodes.GETFIELD -> {
                    boolean onThis = pop();
                    // Outer.this: the inner object's field holding the enclosing instance, a bean of the hierarchy
                    boolean outer = inner
                            && onThis
                            && name.startsWith("this$")
                            && descriptor.startsWith("L")
                            && hierarchy.contains(descriptor.substring(1, descriptor.length() - 1));
                    slots.add(outer);
                }
                default -> pop(1 + size); // PUTFIELD
            }
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            int sizes = Type.getArgumentsAndReturnSizes(descriptor);
            int arguments = (sizes >> 2) - 1; // the size counts a receiver
            boolean onThis = opcode != Opcodes.INVOKESTATIC && at(arguments);
            if (onThis
                    && !name.equals("<init>")
                    && hierarchy.contains(owner)
                    && (opcode == Opcodes.INVOKEVIRTUAL
                            || opcode == Opcodes.INVOKESPECIAL
                            || opcode == Opcodes.INVOKEINTERFACE)) {
                calls.add(new Call(
                        type,
                        method,
                        methodDescriptor,
                        owner,
                        name,
                        descriptor,
                        opcode == Opcodes.INVOKESPECIAL,
                        line));
            }
            apply(arguments + (opcode == Opcodes.INVOKESTATIC ? 0 : 1), sizes & 3);
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String descriptor, Handle bsm, Object... bsmArgs) {
            int sizes = Type.getArgumentsAndReturnSizes(descriptor);
            int arguments = (sizes >> 2) - 1; // no receiver, but the size counts one
            // this::job: the method handle's receiver is the first captured value
            if (arguments > 0
                    && at(arguments - 1)
                    && bsmArgs.length > 1
                    && bsmArgs[1] instanceof Handle h
                    && (h.getTag() == Opcodes.H_INVOKEVIRTUAL
                            || h.getTag() == Opcodes.H_INVOKESPECIAL
                            || h.getTag() == Opcodes.H_INVOKEINTERFACE)
                    && hierarchy.contains(h.getOwner())
                    && !h.getName().startsWith("lambda$")) {
                calls.add(new Call(
                        type,
                        method,
                        methodDescriptor,
                        h.getOwner(),
                        h.getName(),
                        h.getDesc(),
                        h.getTag() == Opcodes.H_INVOKESPECIAL,
                        line));
            }
            apply(arguments, sizes & 3);
        }

        @Override
        public void visitJumpInsn(int opcode, Label label) {
            switch (opcode) {
                case Opcodes.GOTO -> {
                    jump(label);
                    reachable = false;
                    return;
                }
                case Opcodes.JSR -> push(1);
                case Opcodes.IF_ICMPEQ,
                        Opcodes.IF_ICMPNE,
                        Opcodes.IF_ICMPLT,
                        Opcodes.IF_ICMPGE,
                        Opcodes.IF_ICMPGT,
                        Opcodes.IF_ICMPLE,
                        Opcodes.IF_ACMPEQ,
                        Opcodes.IF_ACMPNE -> pop(2);
                default -> pop(1); // IFEQ ... IFLE, IFNULL, IFNONNULL
            }
            jump(label);
        }

        @Override
        public void visitLdcInsn(Object value) {
            boolean wide = value instanceof Long
                    || value instanceof Double
                    || (value instanceof ConstantDynamic d
                            && Type.getType(d.getDescriptor()).getSize() == 2);
            push(wide ? 2 : 1);
        }

        @Override
        public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
            switchTo(dflt, labels);
        }

        @Override
        public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
            switchTo(dflt, labels);
        }

        private void switchTo(Label dflt, Label[] labels) {
            pop(1);
            jump(dflt);
            for (Label l : labels) {
                jump(l);
            }
            reachable = false;
        }

        @Override
        public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
            apply(numDimensions, 1);
        }
    }

    /** The method a call resolves to on an object of class {@code type}, or null. */
    static @Nullable Method target(Call call, Class<?> type) {
        Class<?> from = type;
        if (call.special()) {
            from = ClassUtils.resolveClassName(Type.getObjectType(call.owner()).getClassName(), type.getClassLoader());
        }
        for (Class<?> c = from; c != null; c = c.getSuperclass()) {
            Method m = declared(c, call);
            if (m != null) {
                return m;
            }
        }
        for (Class<?> i : ClassUtils.getAllInterfacesForClassAsSet(from)) {
            Method m = declared(i, call); // a default method the class does not override
            if (m != null && m.isDefault()) {
                return m;
            }
        }
        return null;
    }

    private static @Nullable Method declared(Class<?> c, Call call) {
        for (Method m : c.getDeclaredMethods()) {
            if (m.getName().equals(call.name())
                    && Type.getMethodDescriptor(m).equals(call.descriptor())
                    && !m.isBridge()) {
                return m;
            }
        }
        return null;
    }
}
