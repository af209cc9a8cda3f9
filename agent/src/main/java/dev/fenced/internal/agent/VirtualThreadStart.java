package dev.fenced.internal.agent;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * {@code Thread.startVirtualThread(Runnable)} (Java 21+), instrumented with the ASM that Byte Buddy bundles rather
 * than with Byte Buddy's advice: {@code Thread} is loaded before any agent, so it is retransformed at start, and
 * this way a JVM that never loads an executor or a future loads no Byte Buddy class (a few ASM classes instead of
 * some 800). The method's first instructions become {@code task = Propagation.forVirtualThreadStart(task)}, which
 * is {@link dev.fenced.internal.agent.advice.PropagationAdvice.VirtualThreadTask}'s advice: same call, failures
 * suppressed by the callee. Nothing else in the class changes; its other methods are copied as they are.
 */
final class VirtualThreadStart {

    static final String THREAD = "java/lang/Thread";
    private static final String DESCRIPTOR = "(Ljava/lang/Runnable;)Ljava/lang/Thread;";
    private static final String PROPAGATION = "dev/fenced/internal/agent/bootstrap/Propagation";

    private VirtualThreadStart() {}

    /** {@code Thread}'s class file with the task of {@code startVirtualThread} passed through the propagation. */
    static byte[] weave(byte[] threadClass) {
        ClassReader reader = new ClassReader(threadClass);
        ClassWriter writer = new ClassWriter(reader, 0);
        boolean[] found = {false};
        reader.accept(
                new ClassVisitor(Opcodes.ASM9, writer) {
                    @Override
                    public MethodVisitor visitMethod(
                            int access, String name, String descriptor, String signature, String[] thrown) {
                        MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, thrown);
                        if (!name.equals("startVirtualThread")
                                || !descriptor.equals(DESCRIPTOR)
                                || (access & Opcodes.ACC_STATIC) == 0) {
                            return mv;
                        }
                        found[0] = true;
                        return new MethodVisitor(Opcodes.ASM9, mv) {
                            @Override
                            public void visitCode() {
                                super.visitCode();
                                super.visitVarInsn(Opcodes.ALOAD, 0);
                                super.visitMethodInsn(
                                        Opcodes.INVOKESTATIC,
                                        PROPAGATION,
                                        "forVirtualThreadStart",
                                        "(Ljava/lang/Runnable;)Ljava/lang/Runnable;",
                                        false);
                                super.visitVarInsn(Opcodes.ASTORE, 0);
                            }

                            @Override
                            public void visitMaxs(int maxStack, int maxLocals) {
                                super.visitMaxs(Math.max(maxStack, 1), maxLocals);
                            }
                        };
                    }
                },
                0);
        if (!found[0]) {
            throw new IllegalStateException("java.lang.Thread declares no static startVirtualThread(Runnable)");
        }
        return writer.toByteArray();
    }
}
